# snippet: honest. A small training loop at import with a tqdm progress bar. tqdm started its monitor thread, which was alive during every graded call (worker rule: another thread ran during the call): A 29, flag evasion. The worker template now imports tqdm before it forks a worker for a file that imports it, with the monitor turned off (tqdm.monitor_interval = 0): full marks. In a notebook scratch cell (n01) the loop never runs: full marks.
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
