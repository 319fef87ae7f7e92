"""Short answer: the learner types a word or a phrase; its choices are the accepted answers
(Moodle's `shortanswer`).

A choice's text in each language is an answer that language accepts, where `*` stands for
any run of characters (Moodle's wildcard; `\\*` is a star itself). Both sides are
normalised before they are compared: Unicode NFC, runs of white space made one space, ends
trimmed; case counts only in a question that says so (`case_sensitive`, Moodle's
`usecase`), accents count unless the question says otherwise (`ignore_accents`). An answer
matches the first choice, in order, whose text in the learner's language (or the first
fallback that has one) it fits; it is right when that choice is correct, and a wrong choice
gives its `credit` and its feedback ("a known mistake"). An answer that fits none is wrong
with no feedback.
"""

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from xml.etree import ElementTree as ET

from django import forms
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from modeltranslation.utils import resolution_order

from quizzes.kinds.base import (
    EditedChoice,
    GiftReading,
    GiftWriting,
    Kind,
    MoodleReading,
    MoodleWriting,
    Read,
)
from quizzes.kinds.numerical import plain

MAX_CHARACTERS = 200  # Typed: a term, a phrase, a line of output.
_STAR = "\ufdd0"  # A noncharacter that stands for a wildcard while a pattern is read.
_WEIGHT = re.compile(r"^%(-?[0-9]+(?:\.[0-9]*)?)%")


def normalised(text: str) -> str:
    """A text as answers are compared: NFC, white space collapsed to one space, trimmed."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def _folded(text: str, *, case_sensitive: bool, ignore_accents: bool) -> str:
    text = normalised(text)
    if ignore_accents:
        decomposed = unicodedata.normalize("NFD", text)
        text = unicodedata.normalize(
            "NFC", "".join(char for char in decomposed if not unicodedata.combining(char))
        )
    return text if case_sensitive else text.casefold()


def fits(response: str, pattern: str, *, case_sensitive=False, ignore_accents=False) -> bool:
    """Whether a response fits an accepted answer, `*` standing for any run of characters.

    In time linear in the two lengths for each star: the first piece anchors the start, the
    last the end, and each piece between is found at its first place (the first place
    leaves the most room to the pieces after it)."""
    options = {"case_sensitive": case_sensitive, "ignore_accents": ignore_accents}
    pieces = [
        _folded(piece.replace(_STAR, "*"), **options)
        for piece in re.split(r"(?<!\\)\*", pattern.replace("\\*", _STAR))
    ]
    text = _folded(response, **options)
    if len(pieces) == 1:
        return text == pieces[0]
    first, *middle, last = pieces
    start, end = len(first), len(text) - len(last)
    if start > end or not text.startswith(first) or not text.endswith(last):
        return False
    for piece in middle:
        found = text.find(piece, start, end)
        if found < 0:
            return False
        start = found + len(piece)
    return True


@dataclass(frozen=True)
class Options:
    """How a question compares its answers (Question.case_sensitive, ignore_accents)."""

    case_sensitive: bool = False
    ignore_accents: bool = False


def accepted_text(choice, language: str) -> str:
    """A choice's accepted answer in `language`, or its first fallback's that has one."""
    texts = dict(choice.text.by_language)
    return next((texts[code] for code in resolution_order(language) if texts.get(code)), "")


def first_match(choices: Iterable, response: str, language: str, options: Options):
    """The first of these choices (in their order) the response fits; None when none."""
    for choice in choices:
        pattern = accepted_text(choice, language)
        if pattern and fits(response, pattern, **vars(options)):
            return choice
    return None


class AnswerField(forms.CharField):
    """A typed answer, normalised (NFC, white space collapsed), at most MAX_CHARACTERS."""

    default_error_messages = {"required": _("Type your answer.")}

    def __init__(self, **kwargs):
        super().__init__(strip=True, **kwargs)

    def to_python(self, value) -> str:
        text = super().to_python(value)
        # A lone surrogate, or what a body that is not UTF-8 decodes to (U+FFFD).
        if any(0xD800 <= ord(char) <= 0xDFFF or char == "\ufffd" for char in text):
            raise forms.ValidationError(_("Your answer holds a character that can't be read."))
        text = normalised(text)
        if len(text) > MAX_CHARACTERS:
            message = gettext("That is too long for an answer: %(count)s characters at most.")
            raise forms.ValidationError(message % {"count": MAX_CHARACTERS}, code="max_length")
        return text


class ShortAnswer(Kind):
    name = "short_answer"
    label = _("Short answer")
    keeps_choice_order = True  # The first answer a response fits is its match.
    by_picks = False
    typed = True
    input_template = "quizzes/_text_input.html"
    review_template = "quizzes/_text_review.html"
    options = Options()

    def for_question(self, question) -> Kind:
        options = Options(
            case_sensitive=bool(getattr(question, "case_sensitive", False)),
            ignore_accents=bool(getattr(question, "ignore_accents", False)),
        )
        if options == self.options:
            return self
        bound = ShortAnswer()
        bound.options = options
        return bound

    def problems(self, correct: list[bool]) -> list[str]:
        if any(correct):
            return []
        return [gettext("Mark at least one answer as correct.")]

    def value_problems(self, choices: list[EditedChoice]) -> list[str]:
        return [
            gettext("answer %(number)s: write the answer it accepts.") % {"number": number}
            for number, choice in enumerate(choices, 1)
            if not any(normalised(text) for text in choice.texts.values())
        ]

    def form_field(self, choices, question=None) -> forms.Field:
        return AnswerField()

    def picked(self, value, choices) -> list[int]:
        match = first_match(choices, value, _active(), self.options)
        return [] if match is None else [match.pk]

    def response(self, value) -> str | None:
        return value

    def rematch(self, response: str, choices: Iterable, language: str | None = None) -> list[int]:
        match = first_match(choices, response, language or _active(), self.options)
        return [] if match is None else [match.pk]

    def accepts(self, question, picked: frozenset[int], response: str | None = None) -> bool:
        if not response or len(response) > MAX_CHARACTERS:
            return False
        match = first_match(question.choices, response, _active(), self.options)
        return picked == (frozenset() if match is None else frozenset({match.pk}))

    def grade(self, question, picked: frozenset[int], response: str | None = None) -> float:
        matched = [choice for choice in question.choices if choice.pk in picked]
        if not matched:
            return 0.0
        return 1.0 if matched[0].is_correct else float(matched[0].credit)

    def gift_claims(self, answers: str) -> bool:
        return answers.lstrip().startswith("=") and "~" not in answers and "->" not in answers

    def gift_read(self, answers: str, reading: GiftReading, inherited_format: str) -> Read:
        """{=Frog#Good! =%50%Cat#… =%0%*#Completely wrong}: each answer accepted, weighted
        100 (right), 0 (a known mistake) or between (a wrong answer's credit)."""
        choices = []
        for item in answers.split("="):
            item = item.strip()
            if not item:
                continue
            weight = 100.0
            if match := _WEIGHT.match(item):
                weight, item = float(match.group(1)), item[match.end() :]
            answer, _hash, feedback = item.partition("#")
            read = _weighted(reading.plain(answer), weight, reading.language)
            if isinstance(read, str):
                return Read(problem=read)
            feedback_text, _format = reading.text(feedback, inherited_format)
            if any(feedback_text.values()):
                read["feedback"] = feedback_text
            choices.append(read)
        return _read(choices, {})

    def gift_write(self, question: dict, writing: GiftWriting, general: str) -> list[str]:
        lines = ["{"]
        for choice in question.get("choices", []):
            line = f"\t={_weight_mark(choice)}{_gift_escaped(writing.plain(choice.get('text')))}"
            if writing.plain(choice.get("feedback")):
                line += f"#{writing.text(choice.get('feedback'))}"
            lines.append(line)
        if general:
            lines.append(f"\t{general}")
        return [*lines, "}"]

    moodle_type = "shortanswer"
    moodle_penalty = "0.3333333"

    def moodle_read(self, element: ET.Element, reading: MoodleReading) -> Read:
        choices = []
        for answer in element.findall("answer"):
            try:
                weight = float(answer.get("fraction", "0"))
            except ValueError:
                message = gettext("the answer weight “%(fraction)s” is not a number.")
                return Read(problem=message % {"fraction": answer.get("fraction")})
            read = _weighted((answer.findtext("text") or "").strip(), weight, reading.language)
            if isinstance(read, str):
                return Read(problem=read)
            feedback = reading.text(answer.find("feedback"))
            if feedback:
                read["feedback"] = feedback
            choices.append(read)
        usecase = (element.findtext("usecase") or "0").strip().lower() in ("1", "true")
        return _read(choices, {"case_sensitive": True} if usecase else {})

    def moodle_write(self, element: ET.Element, question: dict, writing: MoodleWriting) -> None:
        ET.SubElement(element, "usecase").text = "1" if question.get("case_sensitive") else "0"
        for choice in question.get("choices", []):
            weight = 100.0 if choice.get("correct") else 100.0 * float(choice.get("credit") or 0)
            writing.answer(element, choice, weight, writing.plain(choice.get("text")))


def _active() -> str:
    return translation.get_language() or settings.LANGUAGE_CODE


def _weighted(answer: str, weight: float, language: str) -> dict | str:
    """A file's answer as a quiz-file choice, or the problem that leaves its question out."""
    if not normalised(answer):
        return gettext("a short answer is empty: write the answer it accepts.")
    if not 0 <= weight <= 100:
        message = gettext("the answer weight “%(fraction)s” is not between 0 and 100.")
        return message % {"fraction": f"{weight:g}"}
    choice = {"text": {language: answer}, "correct": weight == 100.0}
    if 0 < weight < 100:
        choice["credit"] = plain(Decimal(f"{weight:g}") / 100)
    return choice


def _read(choices: list[dict], fields: dict) -> Read:
    if not choices:
        return Read(problem=gettext("a short-answer question needs at least one answer."))
    if not any(choice["correct"] for choice in choices):
        return Read(problem=gettext("no answer has full marks (weight 100): none is right."))
    return Read(fields={"kind": ShortAnswer.name, **fields, "choices": choices})


def _weight_mark(choice: dict) -> str:
    if choice.get("correct"):
        return ""
    return f"%{float(choice.get('credit') or 0) * 100:g}%"


def _gift_escaped(text: str) -> str:
    """An accepted answer as GIFT writes it: its special characters escaped, `*` kept."""
    return re.sub(r"([\\~=#{}:])", r"\\\1", text)


def shown_answer(pattern: str) -> str:
    """An accepted answer as a learner is shown it: its stars (any run) left out, `\\*` a
    star: "*DistributedDataParallel*" shows as "DistributedDataParallel"."""
    return normalised(re.sub(r"(?<!\\)\*", "", pattern).replace("\\*", "*"))
