"""Feedback: the result model, its formats (Gradescope, PrairieLearn, Markdown, HTML, CSV), reports, languages, hints."""
