# snippet: honest but flagged (left for a decision). A small training loop at import with a tqdm progress bar; tqdm starts its monitor thread, which is alive during every graded call (worker rule: another thread ran during the call). Expected now: A 29 (A.2 by hand 0, A.3 1: cannot be checked), flag evasion. In a notebook scratch cell (n01) the loop never runs: full marks.
from tqdm.auto import tqdm

_net = AttentionBlock(8, 2)
_opt = torch.optim.SGD(_net.parameters(), lr=0.01)
_bar = tqdm(range(3), disable=False)
for _step in _bar:
    _out, _ = _net(torch.randn(2, 3, 8))
    _loss = _out.pow(2).mean()
    _opt.zero_grad()
    _loss.backward()
    _opt.step()
    _bar.desc = f"step {_step}"
_bar.close()
