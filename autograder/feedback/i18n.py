"""UI strings in English and Chinese: `t(key, lang, **fmt)`; the language comes from --lang or ATTNKIT_LANG."""
from __future__ import annotations

import os

from autograder.errors import AttnkitError

LANGS = ("en", "zh")
DEFAULT_LANG = "en"
ENV_VAR = "ATTNKIT_LANG"

STRINGS: dict[str, dict[str, str]] = {
    # feedback page / markdown
    "feedback.title": {"en": "Feedback for {name}", "zh": "{name} 的评分反馈"},
    "feedback.score": {"en": "Score", "zh": "得分"},
    "feedback.total": {"en": "Total", "zh": "总分"},
    "feedback.part": {"en": "Part", "zh": "部分"},
    "feedback.points": {"en": "Points", "zh": "分数"},
    "feedback.status": {"en": "Status", "zh": "状态"},
    "feedback.check": {"en": "Check", "zh": "检查项"},
    "feedback.details": {"en": "What went wrong", "zh": "问题说明"},
    "feedback.hint": {"en": "Hint", "zh": "提示"},
    "feedback.checks_heading": {"en": "Checks", "zh": "各项检查"},
    "feedback.parts_heading": {"en": "Score by part", "zh": "各部分得分"},
    "feedback.mistakes_heading": {"en": "Diagnosed mistakes", "zh": "诊断出的错误"},
    "feedback.no_mistakes": {
        "en": "No known mistake was recognised.",
        "zh": "没有识别出已知的常见错误。",
    },
    "feedback.heatmaps_heading": {"en": "Attention heatmaps", "zh": "注意力热力图"},
    "feedback.heatmap_student": {"en": "Your model", "zh": "你的模型"},
    "feedback.heatmap_reference": {"en": "Reference", "zh": "参考实现"},
    "feedback.heatmap_difference": {
        "en": "Difference (yours − reference)",
        "zh": "差异（你的 − 参考）",
    },
    "feedback.similarity": {"en": "similarity {value}", "zh": "相似度 {value}"},
    "feedback.image_missing": {"en": "(image not available)", "zh": "（图像不可用）"},
    "feedback.seed": {
        "en": "Random seed: {seed}. Re-grade with {flag} to reproduce these results.",
        "zh": "随机种子：{seed}。使用 {flag} 重新评分即可复现这些结果。",
    },
    "feedback.events_heading": {"en": "Events while grading", "zh": "评分过程中的事件"},
    "feedback.output_heading": {"en": "What your code printed", "zh": "你的代码输出"},
    "feedback.grader_error": {
        "en": "Your submission could not be graded: {error}",
        "zh": "你的提交无法评分：{error}",
    },
    "feedback.hidden_check": {"en": "hidden check", "zh": "隐藏检查"},
    "feedback.after_due_note": {
        "en": "{count} more check(s) will be shown after the due date.",
        "zh": "另有 {count} 项检查将在截止日期后显示。",
    },
    "feedback.log_note": {
        "en": "The grader's log lines:",
        "zh": "评分程序的日志（原文）：",
    },
    "caption.plot_attention": {
        "en": "plot_attention: your figure, the kit's render of the same weights, and what your figure shows minus those weights",
        "zh": "plot_attention：你的图、本工具对同一组权重的渲染，以及你的图所显示的数值减去这组权重",
    },
    "caption.heatmap": {"en": "{name}", "zh": "注意力热力图 {name}：你的结果、参考结果与两者之差"},
    "feedback.execution_time": {"en": "Graded in {seconds} s", "zh": "评分用时 {seconds} 秒"},
    # grading platforms (PrairieLearn's format_errors: the student's attempt is not counted)
    "platform.no_files": {
        "en": "No files were submitted; this attempt was not counted.",
        "zh": "没有提交任何文件；本次提交不计入次数。",
    },
    "platform.syntax_error": {
        "en": "{file} does not compile ({error}); nothing could be graded and this attempt was not counted. Fix it and submit again.",
        "zh": "{file} 无法编译（{error}）；没有任何内容可以评分，本次提交不计入次数。请修正后重新提交。",
    },
    "platform.grader_failed": {
        "en": "The autograder could not grade this submission; this attempt was not counted. Please tell your instructor.",
        "zh": "自动评分器无法为本次提交评分；本次提交不计入次数。请告知你的老师。",
    },
    # statuses
    "status.passed": {"en": "passed", "zh": "通过"},
    "status.failed": {"en": "failed", "zh": "未通过"},
    "status.error": {"en": "error", "zh": "出错"},
    # parts
    "part.A": {"en": "Scaled dot-product attention", "zh": "缩放点积注意力"},
    "part.B": {"en": "Q/K/V projections", "zh": "Q/K/V 线性投影"},
    "part.C": {"en": "Multi-head attention", "zh": "多头注意力"},
    "part.D": {"en": "Attention block", "zh": "注意力模块"},
    "part.E": {"en": "Attention heatmap", "zh": "注意力热力图"},
    "part.F": {"en": "Trained model analysis", "zh": "训练模型分析"},
    "part.S": {"en": "Rules", "zh": "规则"},
    # heatmap axes
    "plot.query_axis": {"en": "query position", "zh": "Query 位置"},
    "plot.key_axis": {"en": "key position", "zh": "Key 位置"},
    "plot.weight": {"en": "attention weight", "zh": "注意力权重"},
    "plot.difference": {"en": "yours − reference", "zh": "你的 − 参考"},
    "plot.histogram_x": {"en": "score (%)", "zh": "得分（%）"},
    "plot.histogram_y": {"en": "submissions", "zh": "提交数"},
    # dashboard
    "dash.title": {"en": "Class dashboard", "zh": "班级总览"},
    "dash.overview": {
        "en": "{graded} graded, {failed} failed to grade, mean score {mean}%, median {median}%",
        "zh": "已评分 {graded} 份，无法评分 {failed} 份，平均分 {mean}%，中位数 {median}%",
    },
    "dash.histogram": {"en": "Score distribution", "zh": "得分分布"},
    "dash.parts": {"en": "Pass rates by part", "zh": "各部分通过率"},
    "dash.part_full": {"en": "Full marks", "zh": "满分比例"},
    "dash.part_mean": {"en": "Mean score", "zh": "平均得分率"},
    "dash.checks": {"en": "Pass rates by check", "zh": "各检查项通过率"},
    "dash.pass_rate": {"en": "Pass rate", "zh": "通过率"},
    "dash.mistakes": {"en": "Mistakes the class made", "zh": "全班常见错误"},
    "dash.mistake": {"en": "Mistake", "zh": "错误"},
    "dash.submissions": {"en": "Submissions", "zh": "提交数"},
    "dash.no_mistakes": {"en": "No known mistake was diagnosed.", "zh": "没有诊断出已知错误。"},
    "dash.slowest": {"en": "Slowest submissions", "zh": "评分最慢的提交"},
    "dash.seconds": {"en": "Seconds", "zh": "秒"},
    "dash.failed": {"en": "Failed to grade", "zh": "无法评分的提交"},
    "dash.reason": {"en": "Reason", "zh": "原因"},
    "dash.none_failed": {"en": "Every submission was graded.", "zh": "所有提交均已评分。"},
    "dash.all": {"en": "All submissions", "zh": "全部提交"},
    "dash.submission": {"en": "Submission", "zh": "提交"},
    "dash.status_mistakes": {"en": "Status / mistakes", "zh": "状态 / 错误"},
    "dash.events": {"en": "Events", "zh": "事件"},
    # `attnkit check` and `attnkit grade` on the terminal (autograder/feedback/checkview.py, cli.py)
    "check.summary": {
        "en": "done: {done} ({ready} of {count} tasks); next: Task {next}",
        "zh": "已完成：{done}（{count} 个任务中的 {ready} 个）；下一个：任务 {next}",
    },
    "check.all_done": {"en": "done: all {count} tasks pass their visible checks", "zh": "已完成：全部 {count} 个任务都通过了可见检查"},
    "check.none": {"en": "none yet", "zh": "还没有"},
    "check.task_heading": {"en": "Task {task} ({name}): {passed} of {total} checks pass", "zh": "任务 {task}（{name}）：{total} 项检查通过了 {passed} 项"},
    "check.pass": {"en": "PASS", "zh": "通过"},
    "check.fail": {"en": "FAIL", "zh": "未通过"},
    "check.hint": {"en": "hint: {hint}", "zh": "提示：{hint}"},
    "check.more_hints": {
        "en": "more help, one step at a time: attnkit hint {task}",
        "zh": "需要更多帮助（每次多一步）：attnkit hint {task}",
    },
    "check.folded": {
        "en": "probably for the same reason, {count} more check(s) of this task fail (fix the mistake above first):",
        "zh": "很可能出于同一个原因，本任务还有 {count} 项检查未通过（先改正上面的错误）：",
    },
    "check.not_implemented": {
        "en": "Task {task} ({name}) is not implemented yet: it still raises NotImplementedError",
        "zh": "任务 {task}（{name}）还没有实现：它仍然抛出 NotImplementedError",
    },
    "check.crashed": {
        "en": "your code raised {kind} at {where}: {line} (Python: {said})",
        "zh": "你的代码在 {where} 抛出了 {kind}：{line}（Python 原文：{said}）",
    },
    "check.raised": {
        "en": "your code raised {kind} ({said})",
        "zh": "调用你的代码时抛出了 {kind}（Python 原文：{said}）",
    },
    "check.failed_generic": {
        "en": "the result is not what the task asks for",
        "zh": "结果与题目要求不符（英文详情：--lang en）",
    },
    "check.later_hidden": {
        "en": "{count} later task(s) are not shown: finish Task {task} first (attnkit check --all lists them)",
        "zh": "后面还有 {count} 个任务没有列出：先完成任务 {task}（attnkit check --all 会全部列出）",
    },
    "check.note": {"en": "note: {event}", "zh": "注意：{event}"},
    "check.totals": {
        "en": "{passed}/{total} visible checks passed (seed {seed}); the grader also runs hidden checks",
        "zh": "可见检查通过 {passed}/{total}（随机种子 {seed}）；评分时还会运行隐藏检查",
    },
    "hint.heading": {"en": "Task {task}, hint {tier} of 3 ({kind}):", "zh": "任务 {task}，提示 {tier}/3（{kind}）："},
    "hint.next": {"en": "ask again for the next step: attnkit hint {task}", "zh": "再问一次可得到下一步：attnkit hint {task}"},
    "hint.last": {"en": "that was the last hint for Task {task}", "zh": "这是任务 {task} 的最后一条提示"},
    "hint.saved": {"en": "(where you are is saved in {path})", "zh": "（进度保存在 {path}）"},
    "device.note": {
        "en": "on a GPU this would fail: {factory} at {where} (in {function}: {line}) makes a tensor on the default device, the CPU, and {op} combines it with inputs that may be on the GPU; give new tensors device=x.device (or use *_like, x.new_*). No points are taken for this.",
        "zh": "在 GPU 上这里会出错：{where}（{function}：{line}）用 {factory} 在默认设备（CPU）上创建了张量，{op} 又把它和可能在 GPU 上的输入放在一起运算；新张量请加上 device=x.device（或用 *_like、x.new_*）。这一条不扣分。",
    },
    "grade.total": {"en": "{name}: {score}/{max_score}", "zh": "{name}：{score}/{max_score}"},
    "grade.part": {"en": "Part {part}", "zh": "第 {part} 部分"},
    "grade.could_not": {"en": "could not grade: {error}", "zh": "无法评分：{error}"},
    "grade.feedback": {"en": "feedback: {path}", "zh": "反馈页面：{path}"},
    "dash.integrity": {"en": "Integrity flags (instructor only)", "zh": "诚信标记（仅教师可见）"},
    "dash.no_flags": {"en": "No submission raised an integrity flag.", "zh": "没有提交触发诚信标记。"},
    "dash.flags": {"en": "Flags", "zh": "标记"},
    "dash.similar": {"en": "Most similar pairs of answers", "zh": "答案最相似的提交对"},
    "dash.no_similar": {"en": "No pair of submissions reaches the similarity threshold.", "zh": "没有提交对达到相似度阈值。"},
    "dash.similarity": {"en": "Similarity", "zh": "相似度"},
    # attnkit watch (autograder/feedback/formats/watchview.py)
    "watch.header": {"en": "attnkit watch: {path} (seed {seed}), check {count}", "zh": "attnkit watch：{path}（随机种子 {seed}），第 {count} 次检查"},
    "watch.done": {"en": "tasks done: {done}/{total}", "zh": "已完成任务：{done}/{total}"},
    "watch.next": {"en": "next: {task} {name} ({passed}/{total} checks pass)", "zh": "下一个：{task} {name}（通过 {passed}/{total} 项检查）"},
    "watch.all_done": {"en": "every task is right: well done", "zh": "所有任务都正确，做得好"},
    "watch.mistake": {"en": "mistake", "zh": "错误"},
    "watch.hint": {"en": "hint", "zh": "提示"},
    "watch.more_failing": {"en": "{count} more failing checks in {task}", "zh": "{task} 还有 {count} 项检查未通过"},
    "watch.checked_task": {"en": "checked {task} in {seconds:.2f} s; checking the other tasks...", "zh": "{task} 已在 {seconds:.2f} 秒内检查完；正在检查其余任务..."},
    "watch.checked_all": {"en": "checked in {seconds:.2f} s; watching {name}: save to check again, Ctrl-C to stop", "zh": "{seconds:.2f} 秒内检查完；正在监视 {name}：保存即重新检查，Ctrl-C 退出"},
    "watch.stopped": {"en": "attnkit watch stopped", "zh": "attnkit watch 已停止"},
}


def t(key: str, lang: str = DEFAULT_LANG, **fmt: object) -> str:
    """The UI string `key` in `lang`, formatted with `fmt`; English when a translation is missing."""
    try:
        entry = STRINGS[key]
    except KeyError:
        raise KeyError(f"no UI string {key!r} in autograder.feedback.i18n.STRINGS") from None
    text = entry.get(lang) or entry[DEFAULT_LANG]
    return text.format(**fmt) if fmt else text


def check_lang(lang: str, source: str = "--lang") -> str:
    """`lang` if supported, otherwise an AttnkitError naming where the bad value came from."""
    if lang not in LANGS:
        raise AttnkitError(
            f"unsupported language {lang!r} from {source}: use one of {', '.join(LANGS)}"
        )
    return lang


def resolve_lang(cli_value: str | None = None) -> str:
    """The feedback language: --lang beats ATTNKIT_LANG beats English."""
    if cli_value:
        return check_lang(cli_value, "--lang")
    env_value = os.environ.get(ENV_VAR, "").strip()
    if env_value:
        return check_lang(env_value, f"the {ENV_VAR} environment variable")
    return DEFAULT_LANG


def part_title(part: str, lang: str = DEFAULT_LANG) -> str:
    key = f"part.{part}"
    return t(key, lang) if key in STRINGS else part


def status_word(status: str, lang: str = DEFAULT_LANG) -> str:
    key = f"status.{status}"
    return t(key, lang) if key in STRINGS else status
