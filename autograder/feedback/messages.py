"""The engine's check messages, and how a check's message is rendered in any language.

A check result stores keys and values (its check id; a message key and the message's arguments);
the feedback pages render them in the language asked for, with the Words of the assignment that
produced the result (autograder.assignment.words: its manifest's `texts` file gives check names,
its own messages and the words of a `where`; `mistakes` its catalogue). The engine's own messages (ENGINE_MESSAGES, GENERIC) are
the ones every assignment's checks may come to: a call that raised, a worker that failed, the
scoring policy. MESSAGES[key][lang] is a str.format template.

- Check names: the English name is the `@check(...)` argument; the assignment's CHECK_TEXTS
  holds the Chinese one (a check without one shows its id as code on a Chinese page).
- A failure written as plain English text only (no key) shows the GENERIC sentence on a page
  in another language.
- `where` (the call that was checked, e.g. "MultiHeadAttention.forward in training mode
  (weights)") is rendered by `Words.where_text`: the code part stays as code, the words after it
  come from the assignment's WHERE_WORDS / WHERE_PATTERNS, and unknown words are left out of a
  Chinese page rather than shown in English.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

DEFAULT_LANG = "en"
UNREADABLE = "submission_unreadable"  # the message key of every check of a submission that could not be read

GENERIC = {
    "en": "this check did not pass",
    "zh": "这一项检查没有通过，请对照上面的检查名称和提示修改。",
}

ENGINE_MESSAGES: dict[str, dict[str, str]] = {
    # the plugin (autograder/grading/checks/plugin.py): a call of the student's code, a check that could not run
    "student_raised": {"en": "{where} raised {kind}: {text}", "zh": "{where} 抛出了 {kind}：{text}"},
    "stand_in_refused": {
        "en": "{where}, run again with the kit's trusted versions of your earlier functions: {text}",
        "zh": "{where}（用本工具可信的版本代替你前面的函数重新运行）：{text}",
    },
    "student_failed": {"en": "{text}", "zh": "调用你的代码没有得到结果：{text}"},
    UNREADABLE: {"en": "{text}", "zh": "无法读取你的提交：{text}"},
    "not_implemented": {"en": "{where}: not implemented yet{detail}", "zh": "{where} 还没有实现"},
    "check_skipped": {"en": "the check was skipped", "zh": "这一项检查被跳过了"},
    "integrity_zeroed": {
        "en": "set to 0: this part carries an integrity flag, and this course zeroes such a part (--integrity strict); your instructor has the details",
        "zh": "记为 0 分：这一部分带有诚信标记，本课程对这样的部分记 0 分（--integrity strict）；详情请询问你的老师",
    },
    "internal_error": {"en": "the grader could not run this check ({kind}); tell your instructor", "zh": "评分程序无法运行这一项检查（{kind}）；请告诉你的老师"},
    "private_hidden": {
        "en": "this check did not pass (what it found is not shown: your code ran in a worker holding the grader's reference weights)",
        "zh": "这一项检查没有通过（具体情况不予显示：你的代码运行在载入了评分程序参考权重的进程中）",
    },
    # the scoring policy (the plugin, and an assignment's module of error carried forward)
    "scoring_gated": {
        "en": "not counted: this property earns points only when the values are right, and “{gate}” failed",
        "zh": "未计分：只有数值正确时这项性质检查才计分，而“{gate}”未通过",
    },
    "scoring_carried": {
        "en": "correct given your Part {parts}; that mistake is charged in {tasks}",
        "zh": "在你的第 {parts} 部分的基础上是正确的；那个错误已在 {tasks} 中扣分",
    },
    "scoring_carried_several": {
        "en": "correct given your Part {parts}; those mistakes are charged in {tasks}",
        "zh": "在你的第 {parts} 部分的基础上是正确的；那些错误已在 {tasks} 中扣分",
    },
    "scoring_stubs": {
        "en": "correct with the kit's own {names} in place of yours, not written yet (graded in {stubs})",
        "zh": "换用套件自带的 {names} 代替你还没有实现的版本（在 {stubs} 中评分）后是正确的",
    },
    "scoring_carried_and_stubs": {
        "en": "correct given your Part {parts} (charged in {tasks}) and with the kit's own {names} in place of yours, not written yet (graded in {stubs})",
        "zh": "在你的第 {parts} 部分的基础上（已在 {tasks} 中扣分），并换用套件自带的 {names} 代替你还没有实现的版本（在 {stubs} 中评分）后是正确的",
    },
    "scoring_carried_elsewhere": {
        "en": "correct with trusted versions of your functions from {tasks}; they are graded in their own tasks",
        "zh": "换用 {tasks} 中函数的可信版本后是正确的；这些函数在各自的任务中评分",
    },
    "scoring_undoes": {
        "en": "right only with your own {tasks}, which lost points there: with the kit's trusted versions of your earlier functions in their place, {text}. This code undoes their mistake, so it goes wrong once they are fixed",
        "zh": "只有配合你自己的 {tasks}（已在那里失分）才正确：把你前面的函数换成本工具可信的版本后，{text}。这里的代码抵消了它们的错误，它们改正后这里就会出错",
    },
    "scoring_nothing_own": {
        "en": "no points: this check grades your {components}, and each lost points in {tasks}; with trusted versions of all of them nothing of yours is left to grade here (once they are right, this check is graded again)",
        "zh": "不计分：这项检查评的是你的 {components}，而它们都已在 {tasks} 中失分；全部换成可信版本后，这里就没有你自己的代码可评了（它们都正确后，这项检查会重新评分）",
    },
}

_CODE = re.compile(r"^[\w.]+(?:\([^()]*\))?(?:\.[\w]+(?:\([^()]*\))?)*")
_AS_CODE = ("text", "kind", "got", "expected", "used", "names", "name", "own")  # arguments shown as code on another language's page


@dataclass(frozen=True)
class Words:
    """One assignment's words with the engine's: what renders its checks' names and messages."""

    messages: Mapping[str, Mapping[str, str]]  # the engine's and the assignment's (the assignment's win)
    check_names: Mapping[str, str] = field(default_factory=dict)  # check id -> its Chinese name
    mistakes: Mapping[str, Any] = field(default_factory=dict)  # key -> entry with .en and .message(lang)
    where_words: Mapping[str, str] = field(default_factory=dict)
    where_suffixes: tuple[str, ...] = ()
    where_patterns: tuple[tuple[str, str], ...] = ()  # (regex over the words, Chinese with \\1 ...)
    axis_words: Mapping[str, str] = field(default_factory=dict)
    what_words: Mapping[str, str] = field(default_factory=dict)
    strings: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # its UI strings (autograder.feedback.i18n.t_of)

    def render(self, key: str, args: Mapping[str, object], lang: str) -> str:
        """The message `key` in `lang`; KeyError for an unknown key."""
        template = self.messages[key].get(lang) or self.messages[key][DEFAULT_LANG]
        return template.format(**self.localise_args(args, lang))

    def english(self, key: str, **args: object) -> str:
        """The English text of a message, as stored in CheckResult.message."""
        return self.render(key, args, DEFAULT_LANG)

    def key_of_english(self, text: str) -> str:
        """The key of the argument-free message whose English text is `text` ('' when none is)."""
        for key, templates in self.messages.items():
            if "{" not in templates[DEFAULT_LANG] and templates[DEFAULT_LANG] == text:
                return key
        return ""

    def check_name(self, check_id: str, english_name: str, lang: str) -> str:
        """The check's name in `lang`; on a Chinese page a check without a translation shows its id as code."""
        if lang == DEFAULT_LANG:
            return english_name
        name = self.check_names.get(check_id)
        return name if name else f"`{check_id}`"

    def mistake_text(self, key: str, fallback: str, lang: str) -> str:
        """The catalogue's plain-words text for `key` in `lang`; `fallback` (the stored message) otherwise."""
        entry = self.mistakes.get(key)
        return entry.message(lang) if entry is not None else (fallback or key)

    def where_text(self, where: str, lang: str) -> str:
        """`where` for a page in `lang`: its leading code part as code, the words after it translated."""
        if lang == DEFAULT_LANG:
            return where
        gradient = re.fullmatch(r"the gradients? of (\S+)", where)
        if gradient:
            return f"`{gradient.group(1)}` 的梯度"
        if " " not in where:
            return f"`{where}`"
        match = _CODE.match(where)
        code = match.group(0) if match and re.search(r"[_.(A-Z]", match.group(0)) else ""
        rest = where[len(code):].strip()
        shown = f"`{code}`" if code else ""
        suffix = ""
        for english_suffix in self.where_suffixes:
            if rest.endswith(english_suffix) and rest != english_suffix:
                rest, suffix = rest.removesuffix(english_suffix).strip(), self.where_words[english_suffix]
                break
        return shown + self._words(rest) + suffix

    def _words(self, rest: str) -> str:
        """The Chinese of the words after a `where`'s code ('' when unknown: left out, not shown in English)."""
        if not rest:
            return ""
        for pattern, chinese in self.where_patterns:
            found = re.fullmatch(pattern, rest)
            if found:
                return found.expand(chinese)
        return self.where_words.get(rest, "")

    def localise_args(self, args: Mapping[str, object], lang: str) -> dict[str, object]:
        """Arguments ready for a template in `lang`: `where` translated, code-like values as code."""
        shown: dict[str, object] = {}
        for name, value in args.items():
            if name == "where":
                shown[name] = self.where_text(str(value), lang)
            elif name == "what" and lang != DEFAULT_LANG:
                shown[name] = self.what_words.get(str(value), "")
            elif name == "which" and lang != DEFAULT_LANG:
                shown[name] = self.axis_words.get(str(value), "")
            elif name == "problem_key":  # why a drawing cannot be read, in `lang` (left out when unknown)
                if lang != DEFAULT_LANG:
                    shown["problem"] = self.render(str(value), {}, lang) if value in self.messages else ""
            elif name == "gate_ids":  # the gating checks' names, in `lang` (scoring_gated)
                if lang != DEFAULT_LANG:
                    shown["gate"] = "；".join(self.check_name(gate, gate, lang) for gate in str(value).split(","))
            elif lang != DEFAULT_LANG and name in _AS_CODE:
                shown[name] = f"`{value}`"
            elif name not in shown:
                shown[name] = value
        return shown


def words_of(texts: ModuleType | None, mistakes: ModuleType | None = None) -> Words:
    """The Words of an assignment's texts module (and mistakes module), with the engine's messages."""

    def read(name: str, default: Any) -> Any:
        return getattr(texts, name, default) if texts is not None else default

    check_texts = read("CHECK_TEXTS", {})
    return Words(
        messages={**ENGINE_MESSAGES, **read("MESSAGES", {})},
        check_names={check_id: getattr(text, "name_zh", text) for check_id, text in check_texts.items()},
        mistakes=getattr(mistakes, "MISTAKES", {}) if mistakes is not None else {},
        where_words=read("WHERE_WORDS", {}), where_suffixes=tuple(read("WHERE_SUFFIXES", ())),
        where_patterns=tuple(read("WHERE_PATTERNS", ())), axis_words=read("AXIS_WORDS", {}), what_words=read("WHAT_WORDS", {}),
        strings=read("STRINGS", {}),
    )
