"""The attention assignment: hidden checks, mistake catalogue, message texts, reference weights (manifest.toml)."""
