from deep import _library_softmax as fast, _library_attention as fused
