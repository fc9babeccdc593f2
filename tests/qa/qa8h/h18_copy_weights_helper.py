# snippet: honest. A helper copies one module's weights into another under no_grad and clears the copy's gradient (dst.W_q.weight.grad = None). Expected: full marks, no flag (before qa8h: A 29, library_patch).
def copy_projection(dst, src):
    with torch.no_grad():
        dst.W_q.weight.copy_(src.W_q.weight)
    dst.W_q.weight.grad = None
    dst.W_q.weight.data = dst.W_q.weight.data.clone()


copy_projection(MultiHeadAttention(8, 2), MultiHeadAttention(8, 2))
