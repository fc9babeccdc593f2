"""UI strings in English and Chinese: `t(key, lang, **fmt)`; the language comes from --lang or ATTNKIT_LANG.

An assignment may give UI strings of its own (its texts' STRINGS: the words of its heatmaps,
their captions and axes), which win over the engine's: `t_of(words(assignment).strings, key, lang)`.
"""
from __future__ import annotations

import os
from collections.abc import Mapping

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
    "feedback.note": {"en": "Note", "zh": "说明"},  # on a passed check: how its points were earned (carried forward)
    "feedback.hint": {"en": "Hint:", "zh": "提示："},  # a label, before the hint (each language's colon)
    "feedback.hint_line": {"en": "Hint: {hint}", "zh": "提示：{hint}"},
    "feedback.hidden_checks": {  # a course platform's page (Gradescope), which never shows a hidden test
        "en": "{count} hidden check(s), worth {points} point(s), count in the score above; their results are not shown.",
        "zh": "另有 {count} 项隐藏检查（共 {points} 分）计入上面的得分；它们的结果不显示。",
    },
    "feedback.checks_heading": {"en": "Checks", "zh": "各项检查"},
    "feedback.parts_heading": {"en": "Score by part", "zh": "各部分得分"},
    "feedback.mistakes_heading": {"en": "Diagnosed mistakes", "zh": "诊断出的错误"},
    "feedback.no_mistakes": {
        "en": "No known mistake was recognised.",
        "zh": "没有识别出已知的常见错误。",
    },
    "feedback.heatmaps_heading": {"en": "Heatmaps", "zh": "热力图"},  # an assignment's texts may name them
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
    "feedback.seed_platform": {  # Gradescope, PrairieLearn: the student cannot run attnkit there
        "en": "Random seed: {seed} (your instructor can grade your work again with it and get these results).",
        "zh": "随机种子：{seed}（老师用它重新评分，会得到同样的结果）。",
    },
    "feedback.title_platform": {"en": "Feedback", "zh": "评分反馈"},
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
    # a heatmap's caption on a page not in English (the checks write the English one); an
    # assignment's texts may give "caption.<artifact name>" for one heatmap
    "caption.heatmap": {"en": "{name}", "zh": "热力图 {name}：你的结果、参考结果与两者之差"},
    "feedback.folded_under": {
        "en": "probably for the same reason as “{name}”: fix that one first",
        "zh": "很可能与“{name}”出于同一个原因：先改正那一项",
    },
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
    # the kit's heatmaps (autograder/grading/plotting.py): matrix columns across, rows down; an
    # assignment's texts name its axes and values
    "plot.query_axis": {"en": "column", "zh": "列"},
    "plot.key_axis": {"en": "row", "zh": "行"},
    "plot.weight": {"en": "value", "zh": "数值"},
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
    "check.uses_not_implemented": {
        "en": "Task {task} runs your {name} (Task {owner}), which is not implemented yet: it still raises NotImplementedError",
        "zh": "任务 {task} 要运行你的 {name}（任务 {owner}），它还没有实现：仍然抛出 NotImplementedError",
    },
    "check.crashed": {
        "en": "your code raised {kind} at {where}: {line} (Python: {said})",
        "zh": "你的代码在 {where} 抛出了 {kind}：{line}（Python 原文：{said}）",
    },
    # what a student's command (check, watch, hint, grade) could not do: raised in English, shown
    # in the student's language by cli._run (found again from the English, as the notes are)
    "cli.error": {"en": "ERROR {error}", "zh": "错误：{error}"},
    "cli.interrupted": {"en": "stopped (Ctrl-C)", "zh": "已停止（Ctrl-C）"},
    "cli.interrupted_batch": {"en": "stopped (Ctrl-C). Every result already written is kept whole; run the same command again to grade the rest",
                              "zh": "已停止（Ctrl-C）。已写出的结果都完整保留；再次运行同一命令即可评完其余的提交"},
    "cli.no_submission": {"en": "no submission at {path}: give the path of a .py, .ipynb, folder or .zip",
                          "zh": "{path} 不存在：请给出 .py、.ipynb、文件夹或 .zip 的路径"},
    "cli.no_file": {"en": "no file at {path}: give the .py or .ipynb you are working on", "zh": "{path} 处没有文件：请给出你正在写的 .py 或 .ipynb"},
    "cli.no_such_task": {"en": "{option} {task}: no such task; use one of {tasks}", "zh": "{option} {task}：没有这个任务；可用的任务：{tasks}"},
    "cli.no_visible": {"en": "no visible checks for {task}", "zh": "{task} 没有可见检查"},
    # feedback/hints.py writes the English of these two itself (it imports no i18n: tests/test_layout.py)
    "cli.no_hint_task": {"en": "no task {task}: use one of {tasks} (e.g. `attnkit hint {example}`)",
                         "zh": "没有任务 {task}：可用的任务：{tasks}（例如 attnkit hint {example}）"},
    "cli.hint_state": {"en": "cannot save the hint state in {path}: {reason}; run `attnkit hint` in a folder you can write to",
                       "zh": "无法把提示进度保存到 {path}：{reason}；请在你有写权限的文件夹里运行 `attnkit hint`"},
    "cli.no_default_file": {"en": "no {names} here or in {release}: give the file (attnkit {command} PATH)",
                            "zh": "这里和 {release} 里都没有 {names}：请给出文件（attnkit {command} PATH）"},
    # a place in the student's file (grading/chunks.py), in a translated note
    "place.line": {"en": "line {line}", "zh": "第 {line} 行"},
    "place.cell_line": {"en": "cell {cell}, line {line}", "zh": "第 {cell} 个单元格第 {line} 行"},
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
        "en": "{file}: {passed}/{total} visible checks passed (seed {seed}); the grader also runs hidden checks",
        "zh": "{file}：可见检查通过 {passed}/{total}（随机种子 {seed}）；评分时还会运行隐藏检查",
    },
    "hint.heading": {"en": "Task {task}, hint {tier} of 3 ({kind}):", "zh": "任务 {task}，提示 {tier}/3（{kind}）："},
    "hint.next": {"en": "ask again for the next step: attnkit hint {task}", "zh": "再问一次可得到下一步：attnkit hint {task}"},
    "hint.last": {"en": "that was the last hint for Task {task}", "zh": "这是任务 {task} 的最后一条提示"},
    "hint.saved": {"en": "(where you are is saved in {path})", "zh": "（进度保存在 {path}）"},
    "device.note": {
        "en": "on a GPU this would fail: {factory} at {where} (in {function}: {line}) makes a tensor on the default device, the CPU, and {op} combines it with inputs that may be on the GPU; give new tensors device=x.device (or use *_like, x.new_*). No points are taken for this.",
        "zh": "在 GPU 上这里会出错：{where}（{function}：{line}）用 {factory} 在默认设备（CPU）上创建了张量，{op} 又把它和可能在 GPU 上的输入放在一起运算；新张量请加上 device=x.device（或用 *_like、x.new_*）。这一条不扣分。",
    },
    "device.more": {"en": "{count} more lines make tensors on the default device the same way (not listed).",
                    "zh": "另有 {count} 行以同样的方式在默认设备上创建张量（未列出）。"},
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
    "watch.one_more_failing": {"en": "1 more failing check in {task}", "zh": "{task} 还有 1 项检查未通过"},
    "watch.checked_task": {"en": "checked {task} in {seconds:.2f} s; checking the other tasks...", "zh": "{task} 已在 {seconds:.2f} 秒内检查完；正在检查其余任务..."},
    "watch.checked_all": {"en": "checked in {seconds:.2f} s; watching {name}: save to check again, Ctrl-C to stop", "zh": "{seconds:.2f} 秒内检查完；正在监视 {name}：保存即重新检查，Ctrl-C 退出"},
    "watch.stopped": {"en": "attnkit watch stopped", "zh": "attnkit watch 已停止"},
    # Notes the grader writes (events, a reason why nothing could be graded, what a failed call
    # came to). The producers store the English text (`t("note.…", **args)`); a page in another
    # language finds the note again from that text (autograder.feedback.formats.view.note_text). Arguments
    # named in NOTE_PARTS are notes themselves; {where} is a stage or a call of the student's code.
    "note.import_failed": {
        "en": "{failure} (your file could not be imported; every check that needs it fails)",
        "zh": "{failure}（你的文件无法导入；凡是需要它的检查都不通过）",
    },
    "note.worker_ended": {"en": "the worker {ended} in {where}", "zh": "运行你代码的进程在{where}{ended}"},
    "note.timed_out": {"en": "timed out after {seconds} s in {where}", "zh": "{where}超时（{seconds} 秒）"},
    "note.not_called_again": {"en": "{reason} earlier; not called again", "zh": "{reason}（之前已发生；这次不再调用）"},
    "note.time_budget": {"en": "the submission used up its {seconds} s time budget", "zh": "这份提交用完了 {seconds} 秒的总时间预算"},
    "note.memory": {"en": "{where} went over the {gib} GiB memory limit", "zh": "{where}超出了 {gib} GiB 的内存限制"},
    "note.callbacks": {"en": "the worker kept calling trusted stand-ins in {where}", "zh": "运行你代码的进程在{where}反复调用可信替身"},
    "note.too_many_callbacks": {"en": "{where} called the trusted stand-ins more than {count} times", "zh": "{where}调用可信替身超过 {count} 次"},
    "note.bad_status": {"en": "the worker answered {status} in {where}", "zh": "运行你代码的进程在{where}给出了无效的答复 {status}"},
    "note.output_dropped": {
        "en": "your code printed {total} bytes; the first {kept} are kept with the results and the other {dropped} were dropped (grading went on)",
        "zh": "你的代码输出了 {total} 字节；结果中保留前 {kept} 字节，其余 {dropped} 字节被丢弃（评分照常进行）",
    },
    "note.output_cap_workers": {
        "en": "your code ran in several workers (each call that ended its worker starts a new one) and printed more than {kept} bytes in all: the rest was dropped (grading went on)",
        "zh": "你的代码在多个进程中运行（每次结束了进程的调用都会启动新的进程），总共输出超过 {kept} 字节：其余的被丢弃（评分照常进行）",
    },
    "note.output_trailer": {
        "en": "[... {dropped} more bytes of output dropped: the first {kept} bytes are kept]",
        "zh": "[……另有 {dropped} 字节的输出被丢弃：只保留前 {kept} 字节]",
    },
    "note.private_message": {
        "en": "(its type and message are not shown: it was raised in a worker holding the grader's reference weights)",
        "zh": "（错误类型和信息不予显示：它出自载入了评分程序参考权重的进程）",
    },
    "note.unprintable": {  # worker/dispatcher.py: str() of the exception raised in turn
        "en": "(the message cannot be shown: turning it into text raised {kind})",
        "zh": "（错误信息无法显示：把它转成文字时又抛出了 {kind}）",
    },
    "note.returned": {"en": "{where} returned {why}", "zh": "{where}返回了无法交给评分程序的值：{why}"},
    "note.no_tensors": {"en": "{where} did not return tensors", "zh": "{where}没有返回张量"},
    "note.no_object": {"en": "{where} did not build an object", "zh": "{where}没有创建出对象"},
    "note.not_defined": {"en": "{name} is not defined in your file", "zh": "你的文件里没有定义 {name}"},  # worker/dispatcher.py
    "note.not_a_class": {"en": "{name} is not defined as a class", "zh": "{name} 没有定义成类"},
    "note.not_defined_uncompiled": {  # worker/dispatcher.py: a definition skipped for a syntax error
        "en": "{name} is not defined in your file: its code has a syntax error ({place}), so it never ran",
        "zh": "你的文件里没有定义 {name}：它的代码有语法错误（{place}），所以没有运行",
    },
    "note.not_a_class_uncompiled": {
        "en": "{name} is not defined as a class: its code has a syntax error ({place}), so it never ran",
        "zh": "{name} 没有定义成类：它的代码有语法错误（{place}），所以没有运行",
    },
    "note.helper_not_handed_in": {  # grading/session.py load_notes
        "en": "{module}.py is beside {file}, but only that file is graded, not the files beside it: hand in a folder or zip holding both, or put that code in your task cell",
        "zh": "{module}.py 在 {file} 旁边，但评分只用那一个文件，不包括它旁边的文件：请把两者放在一个文件夹或 zip 里提交，或者把那段代码写进任务单元格",
    },
    "note.module_not_promised": {  # grading/session.py load_notes
        "en": "there is no module {module} where your work was graded. A file of yours: hand it in with your work. A package: the grader promises only Python's standard library, torch, numpy, matplotlib and seaborn; wrap an optional import in `try: ... except ImportError:`",
        "zh": "评分环境里没有 {module} 这个模块。如果它是你自己的文件：请和作业一起提交。如果它是一个包：评分环境只保证有 Python 标准库、torch、numpy、matplotlib 和 seaborn；可选的导入请放进 `try: ... except ImportError:`",
    },
    "note.cell_time_limit": {  # grading/session.py: a notebook cell stopped while loading (worker/dispatcher.py CellTimeLimit)
        "en": "a cell of your notebook ran longer than {seconds} s while the grader loaded your work and was stopped there ({frame}); the rest of that cell did not run, the other cells did. Code at the top level of an answer cell (a demo, a training loop) runs every time your work is graded: keep it in a cell of your own",
        "zh": "评分器载入你的作业时，笔记本中有一个单元格运行超过 {seconds} 秒，在这里被停止（{frame}）；该单元格的其余部分没有运行，其他单元格都运行了。作答单元格顶层的代码（演示、训练循环）每次评分都会运行：请把它放在你自己的单元格里",
    },
    "note.statement_time_limit": {  # grading/session.py: a top-level statement of a .py file stopped while loading (worker/dispatcher.py CellTimeLimit)
        "en": "a top-level statement of your file ran longer than {seconds} s while the grader loaded your work and was stopped there ({frame}); the rest of that statement did not run, the statements after it did. Code at the top level of your file (a demo, a training loop) runs every time your work is graded: put it under `if __name__ == \"__main__\":`",
        "zh": "评分器载入你的作业时，你文件中有一条顶层语句运行超过 {seconds} 秒，在这里被停止（{frame}）；该语句的其余部分没有运行，它后面的语句都运行了。文件顶层的代码（演示、训练循环）每次评分都会运行：请把它放在 `if __name__ == \"__main__\":` 下面",
    },
    "note.not_defined_unrun": {  # worker/dispatcher.py: a definition below a statement that raised at import
        "en": "{name} is not defined in your file: the code above it stopped with an error ({cause}), so it never ran",
        "zh": "你的文件里没有定义 {name}：它上方的代码出错停止了（{cause}），所以它没有运行",
    },
    "note.not_a_class_unrun": {
        "en": "{name} is not defined as a class: the code above it stopped with an error ({cause}), so it never ran",
        "zh": "{name} 没有定义成类：它上方的代码出错停止了（{cause}），所以它没有运行",
    },
    "note.not_a_function": {"en": "{name} is not a function", "zh": "{name} 不是函数"},
    "note.not_a_module": {"en": "expected an nn.Module, got {kind}", "zh": "应为 nn.Module，实际是 {kind}"},
    "note.nothing_to_grade": {"en": "nothing to grade", "zh": "没有可以评分的内容"},
    "note.internal_error": {"en": "internal grader error: {kind}: {text}", "zh": "评分程序内部出错：{kind}：{text}"},
    "note.grader_stopped": {
        "en": "internal grader error: the grader's own work on this submission ran past {seconds} s and was stopped; the rest of the batch went on, and a re-run grades it again",
        "zh": "评分程序内部出错：评分程序处理这份提交超过了 {seconds} 秒，已被停止；同一批的其他提交照常评分，重新运行会再评这一份",
    },
    "note.grader_died": {
        "en": "internal grader error: the grader process grading this submission ended ({ended}); the rest of the batch went on, and a re-run grades it again",
        "zh": "评分程序内部出错：评这份提交的评分进程结束了（{ended}）；同一批的其他提交照常评分，重新运行会再评这一份",
    },
    "note.load_error": {"en": "{kind}: {message}; {consequence}", "zh": "导入时出错，{kind}：{message}；{consequence}"},
    "note.load_error_bare": {"en": "{kind}: {message}", "zh": "导入时出错，{kind}：{message}"},
    # how the worker ended ({ended} above)
    "ended.stopped": {"en": "stopped answering", "zh": "停止了响应"},
    "ended.exit": {"en": "exited with code {code}", "zh": "退出了（退出码 {code}）"},
    "ended.signal": {"en": "killed by signal {signal}", "zh": "被信号 {signal} 终止"},
    "ended.invalid_reply": {"en": "sent an invalid reply ({error})", "zh": "发回了无效的答复（{error}）"},
    "ended.killed": {"en": "killed", "zh": "被终止"},
    "ended.memory_group": {"en": "killed: its processes together went over the {gib} GiB memory limit", "zh": "被终止：它的进程合计超出了 {gib} GiB 的内存限制"},
    "ended.private": {"en": "ended (how is not shown: it held the grader's reference weights)", "zh": "结束了（如何结束不予显示：它载入了评分程序的参考权重）"},
    "ended.segfault": {"en": "crashed (segmentation fault)", "zh": "崩溃了（段错误）"},
    "ended.cpu_limit": {"en": "killed: over the CPU time limit", "zh": "被终止：超出了 CPU 时间限制"},
    "ended.aborted": {"en": "crashed (aborted)", "zh": "崩溃了（abort）"},
    "ended.bus_error": {"en": "crashed (bus error)", "zh": "崩溃了（总线错误）"},
    "ended.arithmetic": {"en": "crashed (arithmetic fault)", "zh": "崩溃了（算术错误）"},
    "ended.illegal": {"en": "crashed (illegal instruction)", "zh": "崩溃了（非法指令）"},
    "ended.file_size": {"en": "killed: over the file size limit", "zh": "被终止：超出了文件大小限制"},
    # what did not run after an error while importing ({consequence} above)
    "load.syntax_file": {"en": "your file could not be compiled, so none of it ran", "zh": "你的文件无法编译，所以一行也没有运行"},
    "load.syntax_cell": {"en": "that cell was skipped; the other cells ran", "zh": "跳过了那个单元格；其他单元格都运行了"},
    "load.syntax_statement": {
        "en": "the top-level statement it is in was skipped (a def or a class: all of it); the other statements of your file ran",
        "zh": "跳过了它所在的那条顶层语句（def 或 class 则整个跳过）；文件中的其他语句都运行了",
    },
    "load.error_file": {
        "en": "importing your file stopped there: nothing after that point ran, so only what was defined before it was graded",
        "zh": "导入在那里停止了：之后的代码都没有运行，所以只评了在那之前定义的内容",
    },
    "load.error_cell": {"en": "the rest of that cell did not run; the other cells did", "zh": "那个单元格的其余部分没有运行；其他单元格都运行了"},
    "load.error_statement": {
        "en": "that top-level statement did not finish; the other statements of your file ran",
        "zh": "那条顶层语句没有运行完；文件中的其他语句都运行了",
    },
    # why a value could not come back from the worker ({why} above)
    "refused.nested": {"en": "a value nested too deeply", "zh": "嵌套层数过深的值"},
    "refused.keys": {"en": "a dict with non-string keys", "zh": "键不是字符串的 dict"},
    "refused.subclass": {"en": "a Tensor subclass ({kind}); return a plain torch.Tensor", "zh": "Tensor 的子类（{kind}）；请返回普通的 torch.Tensor"},
    "refused.object": {"en": "an object of type {kind}", "zh": "类型为 {kind} 的对象"},
    "refused.layout": {"en": "a tensor with layout {layout} on {device}; return a dense CPU tensor", "zh": "布局为 {layout}、位于 {device} 的张量；请返回 CPU 上的稠密张量"},
    "refused.dtype": {"en": "a tensor of dtype {dtype}", "zh": "dtype 为 {dtype} 的张量"},
    "refused.size": {"en": "a tensor of {count} elements ({size} bytes), over the size limit", "zh": "有 {count} 个元素（{size} 字节）的张量，超出了大小限制"},
    # why a submission could not be read (autograder/grading/submission.py: SubmissionError)
    "submission.nul": {"en": "{file} is not a text file (it contains NUL bytes); submit your {student_file}", "zh": "{file} 不是文本文件（含有 NUL 字节）；请提交你的 {student_file}"},
    "submission.empty": {"en": "{file} is empty (no code in it), so every task scores 0: was it saved before it was handed in? Hand in the {student_file} you wrote your code in", "zh": "{file} 是空的（没有代码），所以每个任务都是 0 分：交之前保存了吗？请提交你写了代码的 {student_file}"},
    "submission.encoding": {"en": "{file} is not readable Python text ({error}); save it as UTF-8", "zh": "{file} 不是可读的 Python 文本（{error}）；请用 UTF-8 编码保存"},
    "submission.notebook": {"en": "{file} is not a valid Jupyter notebook ({error}); re-save it from Jupyter", "zh": "{file} 不是有效的 Jupyter 笔记本（{error}）；请在 Jupyter 中重新保存"},
    "submission.notebook_old": {
        "en": "{file} is an nbformat {version} notebook (Jupyter before 2015); open it in Jupyter and save it again (nbformat 4)",
        "zh": "{file} 是 nbformat {version} 格式的笔记本（2015 年以前的 Jupyter）；请在 Jupyter 中打开并重新保存（nbformat 4）",
    },
    "submission.cell_source": {
        "en": "{file}: cell {number} has a source that is not text ({kind}); re-save the notebook from Jupyter",
        "zh": "{file}：第 {number} 个单元格的内容不是文本（{kind}）；请在 Jupyter 中重新保存笔记本",
    },
    "submission.symlink": {"en": "{file} is a symbolic link; submit the file itself", "zh": "{file} 是符号链接；请提交文件本身"},
    "submission.not_a_file": {"en": "{file} is not a file (a pipe, a device or a socket); submit the file itself", "zh": "{file} 不是普通文件（而是管道、设备或套接字）；请提交文件本身"},
    "submission.missing": {"en": "no submission at {file}", "zh": "{file} 处没有提交"},
    "submission.kind": {"en": "{file}: expected a .py file, an .ipynb notebook, a folder or a .zip", "zh": "{file}：应为 .py 文件、.ipynb 笔记本、文件夹或 .zip"},
    "submission.too_big": {"en": "{file} is {size} bytes, over the {limit} MiB limit", "zh": "{file} 有 {size} 字节，超出了 {limit} MiB 的限制"},
    "submission.notebook_too_big": {
        "en": "{file} is {size} bytes, over the {limit} MiB limit of a notebook: its outputs (pictures) make it that large, and they are not graded. Clear them (Edit › Clear Outputs of All Cells, or Kernel › Restart Kernel and Clear Outputs), save, and hand it in again",
        "zh": "{file} 有 {size} 字节，超出了笔记本 {limit} MiB 的限制：是单元格的输出（图片）让它这么大，而输出不参与评分。请清除输出（菜单 `Edit › Clear Outputs of All Cells`，或 `Kernel › Restart Kernel and Clear Outputs`），保存后重新提交",
    },
    "submission.folder_unreadable": {"en": "{file}: a folder that cannot be read ({error}); hand in your files in a folder of a few levels, or as a .zip", "zh": "{file}：无法读取的文件夹（{error}）；请把文件放在层级不多的文件夹里提交，或打包成 .zip"},
    "submission.folder_too_big": {"en": "{file}: more than {count} files or {limit} MiB of code", "zh": "{file}：超过 {count} 个文件或 {limit} MiB 的代码"},
    "submission.bad_zip": {"en": "{file} is not a readable zip archive ({error})", "zh": "{file} 不是可读的 zip 压缩包（{error}）"},
    "submission.zip_entries": {"en": "{file} holds {count} entries, more than {limit}", "zh": "{file} 有 {count} 个条目，超过了 {limit} 个"},
    "submission.zip_same_name": {
        "en": "{file} holds two entries named {entry}; zip your folder again so that each file is in it once",
        "zh": "{file} 中有两个名为 {entry} 的条目；请重新压缩文件夹，让每个文件只出现一次",
    },
    "submission.zip_escape": {
        "en": "{file}: entry {entry} points outside the archive; zip your folder again without absolute paths or '..'",
        "zh": "{file}：条目 {entry} 指向压缩包之外；请不用绝对路径或 '..' 重新压缩文件夹",
    },
    "submission.zip_symlink": {"en": "{file}: entry {entry} is a symbolic link; zip real files only", "zh": "{file}：条目 {entry} 是符号链接；只压缩真实的文件"},
    "submission.zip_entry": {"en": "{file}: entry {entry} cannot be unpacked ({error}); zip your folder again", "zh": "{file}：条目 {entry} 无法解压（{error}）；请重新压缩文件夹"},
    "submission.zip_bomb": {
        "en": "{file} unpacks to more than the limits ({file_limit} MiB a file, {limit} MiB, {count} files)",
        "zh": "{file} 解压后超出了限制（每个文件 {file_limit} MiB，共 {limit} MiB，{count} 个文件）",
    },
    "submission.ambiguous": {
        "en": "{file}: holds several different {student_file} files ({files}); hand in only the one you worked in",
        "zh": "{file}：包含多个不同的 {student_file}（{files}）；只提交你实际编写的那一个",
    },
    "submission.not_found": {
        "en": "{file}: found no {student_file}, {notebook} or {notebook_zh} (files: {files})",
        "zh": "{file}：没有找到 {student_file}、{notebook} 或 {notebook_zh}（文件：{files}）",
    },
    "submission.metadata": {
        "en": "{file}: its metadata is {value}, not an object; it was read as a cell without tags",
        "zh": "{file}：它的元数据是 {value}，不是对象；已按没有标签的单元格读取",
    },
    "submission.cell_places": {  # grading/session.py: a notebook whose feedback names places in it (grading/chunks.py)
        "en": "\"cell N, line M\" in this feedback is the N-th cell from the top of the notebook, counting every cell (markdown cells too), and line M inside it (JupyterLab shows a cell's line numbers with the menu `View › Show Line Numbers`)",
        "zh": "本反馈中的 \"cell N, line M\" 指笔记本从上往下数的第 N 个单元格（所有单元格都算，Markdown 单元格也算）中的第 M 行（在 JupyterLab 中用菜单 `View › Show Line Numbers` 显示单元格内的行号）",
    },
    "submission.untagged_definition": {
        "en": "{file}: cell {number} is not an answer cell (tagged attnkit:answer), but it defines {names}, which your answer cells use or define again: the grader ran those definitions in notebook order, as Run All does, and nothing else of that cell; keep your code in the answer cells",
        "zh": "{file}：第 {number} 个单元格不是作答单元格（标签 attnkit:answer），但它定义了 {names}，你的作答单元格用到或重新定义了它：评分器按笔记本中的顺序（与 Run All 相同）运行了这些定义，该单元格的其余代码没有运行；请把代码写在作答单元格里",
    },
    "submission.answer_after_check": {
        "en": "{file}: cell {number} defines {names} again, after the check of that task (cell {check}): a task is graded as its check cell saw it, so that definition was not run; keep each task in its own answer cell",
        "zh": "{file}：第 {number} 个单元格在该任务的检查单元格（第 {check} 个）之后又定义了 {names}：任务按它的检查单元格当时看到的代码评分，所以这个定义没有运行；请把每个任务写在它自己的作答单元格里",
    },
    "submission.untagged_answer": {
        "en": "{file}: no answer cell (tagged attnkit:answer) writes these tasks, so the cells that define them were graded as your answer cells, each run whole: cells {cells}; your other cells give only the definitions your answers use. Keep each task in its answer cell",
        "zh": "{file}：没有作答单元格（标签 attnkit:answer）写这些任务，所以定义它们的单元格被当作你的作答单元格评分，每个都整格运行：单元格 {cells}；你的其他单元格只提供作答用到的定义。请把每个任务写在它的作答单元格里",
    },
    "submission.graded_copy": {
        "en": "graded {file}, the file with your work in it (fewest tasks left unwritten); {others} was handed in beside it and not graded. Hand in one file under its own name",
        "zh": "评分的是 {file}：它是写有你的作答的文件（未完成的任务最少）；同时交上来的 {others} 没有评分。请只交一个文件，并保留它原来的文件名",
    },
    "submission.export_not_graded": {
        "en": "graded {file}; {others}, a copy of a notebook written by `jupyter nbconvert --to script`, was handed in beside it and not graded",
        "zh": "评分的是 {file}；同时交上来的 {others} 是用 `jupyter nbconvert --to script` 从 notebook 导出的副本，没有评分",
    },
    "submission.exported": {
        "en": "{file} was written from a notebook by `jupyter nbconvert --to script`, so it is graded as that notebook ({notebook}) is: each `# In[ ]:` mark begins a cell; the cells that define the tasks run whole, your other cells give only the definitions those use, and the check cells, demos and IPython lines (get_ipython()) do not run. Line numbers are those of {file}",
        "zh": "{file} 是用 `jupyter nbconvert --to script` 从 notebook 导出的，所以按那个 notebook（{notebook}）的方式评分：每个 `# In[ ]:` 标记开始一个单元格；定义任务的单元格整格运行，你的其他单元格只提供这些单元格用到的定义，检查单元格、演示和 IPython 行（get_ipython()）不运行。行号是 {file} 中的行号",
    },
    "submission.export_definition": {
        "en": "{file}: the cell at line {line} is not a task's cell, but it defines {names}, which your task cells use or define again: the grader ran those definitions in notebook order, as Run All does, and nothing else of that cell",
        "zh": "{file}：第 {line} 行开始的单元格不是任务的单元格，但它定义了 {names}，你的任务单元格用到或重新定义了它：评分器按笔记本中的顺序（与 Run All 相同）运行了这些定义，该单元格的其余代码没有运行",
    },
    "submission.export_after_check": {
        "en": "{file}: the cell at line {line} defines {names} again, after the check of that task (the cell at line {check}): a task is graded as its check cell saw it, so that definition was not run; keep each task in its own cell",
        "zh": "{file}：第 {line} 行开始的单元格在该任务的检查单元格（第 {check} 行）之后又定义了 {names}：任务按它的检查单元格当时看到的代码评分，所以这个定义没有运行；请把每个任务写在它自己的单元格里",
    },
    "submission.task_in_text_cell": {
        "en": "{file}: cell {number} is a {kind} cell, so it never runs, but it holds the code of {names}: make it a code cell again (in Jupyter: select it, press Esc, then Y)",
        "zh": "{file}：第 {number} 个单元格是 {kind} 单元格，不会运行，但里面写的是 {names} 的代码：请把它改回代码单元格（在 Jupyter 里选中它，按 Esc，再按 Y）",
    },
    "submission.own_cells_too_many": {
        "en": "{file}: your own cells (those that are not answer cells) hold {count} top-level statements, more than the {limit} the grader reads: none of them was run. Keep your answers in the answer cells",
        "zh": "{file}：你自己的单元格（不是作答单元格的那些）共有 {count} 条顶层语句，超过评分程序读取的 {limit} 条：其中的代码都没有运行。请把作答写在作答单元格里",
    },
    "submission.untagged_more": {
        "en": "{file}: {count} more cells that are not answer cells gave definitions to your answer cells in the same way",
        "zh": "{file}：另有 {count} 个不是作答单元格的单元格以同样方式为你的作答单元格提供了定义",
    },
    "submission.metadata_more": {
        "en": "{file}: {count} more cells have metadata of the wrong kind, each read the same way",
        "zh": "{file}：另有 {count} 个单元格的元数据类型不对，都按同样的方式读取",
    },
    "submission.tags": {
        "en": "{file}: its metadata \"tags\" is {value}, not a list of strings; it was read as a cell without tags",
        "zh": "{file}：它的元数据 \"tags\" 是 {value}，不是字符串列表；已按没有标签的单元格读取",
    },
    "submission.nbgrader": {
        "en": "{file}: its metadata \"nbgrader\" is {value}, not an object; it was read as a cell that is not an nbgrader solution",
        "zh": "{file}：它的元数据 \"nbgrader\" 是 {value}，不是对象；已按不是 nbgrader 答案的单元格读取",
    },
    # the stages of grading ({where} above, when it is not a call of the student's code)
    "stage.starting the worker": {"en": "starting the worker", "zh": "启动时"},
    "stage.importing your file": {"en": "importing your file", "zh": "导入你的文件时"},
    "stage.looking up names": {"en": "looking up names", "zh": "查找名称时"},
    "stage.inspecting your module": {"en": "inspecting your module", "zh": "检查你的模块时"},
    # attnkit report: the class as a whole
    "report.mixed_seeds": {
        "en": "This class holds results of {count} seeds ({seeds}), so its submissions did not get the same random"
              " inputs: grade it again with one seed (attnkit grade-batch DIR --out OUT --seed N --force).",
        "zh": "本班的结果来自 {count} 个不同的随机种子（{seeds}），各提交拿到的随机输入并不相同：请用同一个种子重新评分"
              "（attnkit grade-batch DIR --out OUT --seed N --force）。",
    },
    "report.not_compiled": {
        "en": "{file} does not compile ({error}): nothing of it could be graded",
        "zh": "{file} 无法编译（{error}）：没有任何内容可以评分",
    },
}

# Note arguments that are notes themselves: the prefixes of the keys they may be.
NOTE_PARTS: dict[str, tuple[str, ...]] = {
    "failure": ("note.",), "reason": ("note.",), "ended": ("ended.",), "consequence": ("load.",), "why": ("refused.",),
}


def t(key: str, lang: str = DEFAULT_LANG, **fmt: object) -> str:
    """The UI string `key` in `lang`, formatted with `fmt`; English when a translation is missing."""
    return t_of({}, key, lang, **fmt)


def t_of(own: Mapping[str, Mapping[str, str]], key: str, lang: str = DEFAULT_LANG, **fmt: object) -> str:
    """t(), where an assignment's own UI strings `own` (Words.strings) win over the engine's."""
    entry = own.get(key) or STRINGS.get(key)
    if entry is None:
        raise KeyError(f"no UI string {key!r} in autograder.feedback.i18n.STRINGS")
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


def status_word(status: str, lang: str = DEFAULT_LANG) -> str:
    key = f"status.{status}"
    return t(key, lang) if key in STRINGS else status
