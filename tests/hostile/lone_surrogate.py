# snippet: causal_mask raises with lone surrogates in its message: valid JSON, not valid UTF-8,
# so a grader that kept them as they came could not write the results files.
def causal_mask(size_q, size_k=None, device=None):
    raise ValueError("bad \udfff mask \ud800")
