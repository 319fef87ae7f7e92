"""Moodle's cloze syntax: the embedded answers of a multianswer question's text, read and
written (qtype_multianswer's `qtype_multianswer_extract_question`).

A gap is written in the text where it shows, `{1:SHORTANSWER:=Berlin#Good!~%50%Munich#Half~*#No}`:
its weight (the `1`, none for 1), its type and its answers, each with its weight in percent
(`=` for 100, `%50%`, none for 0), its text and, after a `#`, its feedback, `~` between them.
`\\}`, `\\#`, `\\~`, `\\/`, `\\"` and `\\\\` are the character itself. As in Moodle, an answer
ends at the first `~`, `#` or `}` not escaped nor after a `&` (an entity, `&#39;`), its
feedback at the first `~` or `}` not escaped; the type names are case-sensitive.

Reading is one pass over the text, in linear time, whatever it holds.
"""

import re
from dataclasses import dataclass

from django.utils.translation import gettext

MAX_ANSWERS = 100  # In one question, as Moodle XML's `<answer>`s (moodle_common.MAX_ANSWERS).
_START = re.compile(r"\{([0-9]*):([A-Z][A-Z_]*):")
_FRACTION = re.compile(r"%(-?[0-9]+(?:[.,][0-9]*)?)%")
_ESCAPED = re.compile(r"\\([}#~/\"\\])")
_NUMBER = r"-?(?:[0-9]+[.,]?[0-9]*|[.,][0-9]+)(?:[eE][-+]?[0-9]+)?"
_NUMERICAL = re.compile(f"({_NUMBER})(?::({_NUMBER}))?")
_SHOWN = 30  # Characters of a marker a message quotes.
# A gap in a text while it is read from its format: noncharacters, which no conversion
# to Markdown escapes, around its number.
_HELD = "\ufdd2"
_HELD_GAP = re.compile(_HELD + r"([0-9]+)" + _HELD + r"(\()?")

# Moodle's types (ANSWER_TYPE_DEF_REGEX), each as (the kind of gap, case-sensitive or
# shuffled); None for the multiple-response ones, a gap of several answers.
TYPES: dict[str, tuple[str, bool] | None] = {
    **dict.fromkeys(("NUMERICAL", "NM"), ("numerical", False)),
    **dict.fromkeys(("SHORTANSWER", "SA", "MW"), ("short_answer", False)),
    **dict.fromkeys(("SHORTANSWER_C", "SAC", "MWC"), ("short_answer", True)),
    **dict.fromkeys(
        ("MULTICHOICE", "MC", "MULTICHOICE_V", "MCV", "MULTICHOICE_H", "MCH"), ("single", False)
    ),
    **dict.fromkeys(
        ("MULTICHOICE_S", "MCS", "MULTICHOICE_VS", "MCVS", "MULTICHOICE_HS", "MCHS"),
        ("single", True),
    ),
    **dict.fromkeys(
        (
            "MULTIRESPONSE",
            "MR",
            "MULTIRESPONSE_H",
            "MRH",
            "MULTIRESPONSE_S",
            "MRS",
            "MULTIRESPONSE_HS",
            "MRHS",
        ),
        None,
    ),
}
# The type each kind of gap is written as: (plain, case-sensitive or shuffled).
WRITTEN = {
    "numerical": ("NUMERICAL", "NUMERICAL"),
    "short_answer": ("SHORTANSWER", "SHORTANSWER_C"),
    "single": ("MULTICHOICE", "MULTICHOICE_S"),
}


@dataclass(frozen=True)
class Answer:
    """One answer of a gap: its weight in percent as written ("100" for `=`, "0" for none),
    its text and its feedback, unescaped."""

    weight: str
    text: str
    feedback: str = ""


@dataclass(frozen=True)
class Gap:
    """One embedded answer: its weight in the question (the `{2:`, "" for none: 1), its type
    as written, and its answers."""

    weight: str
    type: str
    answers: tuple[Answer, ...]


@dataclass(frozen=True)
class Cloze:
    """A text's gaps in order, and the text with each gap's marker held as its number (`held`);
    or the `problem` that makes its gaps unreadable."""

    gaps: tuple[Gap, ...] = ()
    held: str = ""
    problem: str = ""


def _shown(text: str) -> str:
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "…"


def unescaped(text: str) -> str:
    return _ESCAPED.sub(r"\1", text)


def escaped(text: str) -> str:
    """A text as an answer or a feedback of a marker holds it: `}`, `#` and `~` escaped, and a
    backslash that would escape what follows it, or ends the text."""
    text = re.sub(r"\\(?=[}#~/\"\\]|$)", r"\\\\", text)
    return re.sub(r"([}#~])", r"\\\1", text)


def _end(text: str, start: int, stops: str, after_entity: bool) -> int:
    """Where, from `start`, the first of `stops` not escaped (nor, with `after_entity`, after
    a `&` or `&amp;`) is; -1 where there is none."""
    position = start
    length = len(text)
    while position < length:
        char = text[position]
        if char == "\\":
            position += 2
            continue
        entity = after_entity and text.endswith(("&", "&amp;"), 0, position)
        if char in stops and not entity:
            return position
        position += 1
    return -1


def read(text: str) -> Cloze:
    """The gaps of a Moodle multianswer question's text."""
    text = text.replace(_HELD, "\ufffd")
    gaps: list[Gap] = []
    parts: list[str] = []
    position = 0
    while match := _START.search(text, position):
        number = len(gaps) + 1
        read_gap = _gap(text, match, number)
        if isinstance(read_gap, str):
            return Cloze(problem=read_gap)
        gap, position_after = read_gap
        gaps.append(gap)
        parts += [text[position : match.start()], f"{_HELD}{number}{_HELD}"]
        position = position_after
    parts.append(text[position:])
    count = sum(len(gap.answers) for gap in gaps)
    if count > MAX_ANSWERS:
        message = gettext("%(count)s answers: at most %(limit)s are read.")
        return Cloze(problem=message % {"count": count, "limit": MAX_ANSWERS})
    return Cloze(gaps=tuple(gaps), held="".join(parts))


def _gap(text: str, match: re.Match, number: int) -> tuple[Gap, int] | str:
    """The gap whose marker starts at `match`, and where its marker ends; or why it can't
    be read."""
    values = {"number": number, "marker": _shown(text[match.start() : match.start() + _SHOWN + 1])}
    answers = []
    cursor = match.end()
    while True:
        weight = "0"
        if text.startswith("=", cursor):
            weight, cursor = "100", cursor + 1
        elif fraction := _FRACTION.match(text, cursor):
            weight, cursor = fraction.group(1).replace(",", "."), fraction.end()
        answer_end = end = _end(text, cursor, "~#}", after_entity=True)
        feedback = ""
        if end != -1 and text[end] == "#":
            end = _end(text, answer_end + 1, "~}", after_entity=False)
            feedback = text[answer_end + 1 : end]
        if end == -1:
            return gettext("gap %(number)s (“%(marker)s”) is not closed: end it with }.") % values
        answer = text[cursor:answer_end]
        if not answer.strip():
            return gettext("gap %(number)s (“%(marker)s”) has an empty answer.") % values
        if inner := _START.search(answer):
            message = gettext(
                "gap %(number)s holds another embedded answer (“%(inner)s”): "
                "write each gap on its own."
            )
            return message % {"number": number, "inner": _shown(answer[inner.start() :])}
        answers.append(Answer(weight, unescaped(answer), unescaped(feedback)))
        cursor = end + 1
        if text[end] == "}":
            return Gap(match.group(1), match.group(2), tuple(answers)), cursor


def numerical(text: str) -> tuple[str, str]:
    """A numerical gap's answer as its value and tolerance ("23.8:0.1": "23.8", "0.1"), a
    comma taken for a decimal point, as Moodle reads them; any other text is its value."""
    found = _NUMERICAL.fullmatch(text)
    if found is None:
        return text, "0"
    value, tolerance = found.group(1), found.group(2) or "0"
    return value.replace(",", "."), tolerance.replace(",", ".")


def with_gaps(text: str) -> str:
    """A text read from its format with its held gaps as [[1]], [[2]]…: a "(" right after a
    gap escaped, which would make it a link."""
    return _HELD_GAP.sub(lambda gap: f"[[{gap.group(1)}]]" + ("\\(" if gap.group(2) else ""), text)


def marker(type_name: str, answers: list[Answer]) -> str:
    """A gap as a text holds it, of weight 1: `{1:SHORTANSWER:=Berlin#Good!~Munich}`."""
    written = []
    for answer in answers:
        weight = {"100": "=", "0": ""}.get(answer.weight, f"%{answer.weight}%")
        text = escaped(answer.text)
        if not weight and text.startswith(("=", "%")):
            weight = "%0%"  # Else read as its weight.
        feedback = f"#{escaped(answer.feedback)}" if answer.feedback else ""
        written.append(weight + text + feedback)
    return "{1:" + type_name + ":" + "~".join(written) + "}"
