"""What the kinds answered by picking choices share: the learner's field, the grading,
and how Moodle's multiple-choice questions (GIFT's `{=right ~wrong}` and Moodle XML's
"multichoice") read and write them, weights and all."""

import re
from dataclasses import replace
from xml.etree import ElementTree as ET

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from quizzes.kinds.base import GiftReading, GiftWriting, Kind, MoodleReading, MoodleWriting, Read

_CHOICE_ERRORS = {
    "required": _("Choose an answer."),
    "invalid_choice": _(
        "That is not one of this question's choices. Choose one of the answers shown."
    ),
}
# A GIFT answer's weight: ~%50%half right.
GIFT_WEIGHT = re.compile(r"^%(-?[0-9]+(?:\.[0-9]*)?)%")


def partial_grade(correct: list[bool], picked: list[bool]) -> float:
    """Moodle's partial credit for several picks: each correct choice picked earns its share
    (1 / the number of correct choices), each wrong one picked takes its share away (1 / the
    number of wrong choices), never below 0. Picking everything scores 0."""
    right = sum(correct)
    wrong = len(correct) - right
    earned = sum(p and c for p, c in zip(picked, correct, strict=True)) / (right or 1)
    lost = sum(p and not c for p, c in zip(picked, correct, strict=True)) / (wrong or 1)
    return max(earned - lost, 0.0)


def too_few_choices(correct: list[bool]) -> list[str]:
    return [gettext("A question needs at least two choices.")] if len(correct) < 2 else []


class ChoiceKind(Kind):
    """A question answered by picking among its choices: right when the picks are exactly
    its correct choices; one wrong pick earns its choice's credit."""

    marks_choices = True  # templates/quizzes/_choice_inputs.html and _choice_review.html.

    def form_field(self, choices, question=None) -> forms.Field:
        field = forms.TypedMultipleChoiceField if self.several else forms.TypedChoiceField
        return field(
            coerce=int,
            error_messages=_CHOICE_ERRORS,
            choices=[(choice.pk, choice.text) for choice in choices],
        )

    def picked(self, value, choices) -> list[int]:
        return list(value) if self.several else [value]

    def accepts(self, question, picked: frozenset[int], response: str | None = None) -> bool:
        return response is None and bool(picked) and (self.several or len(picked) == 1)

    def grade(self, question, picked: frozenset[int], response: str | None = None) -> float:
        """1 for exactly the correct choices; else, for one pick, that choice's `credit` (a
        near miss's share, 0 by default), else 0."""
        correct = {choice.pk for choice in question.choices if choice.is_correct}
        if picked == correct:
            return 1.0
        if self.several or len(picked) != 1:
            return 0.0
        return next((float(c.credit) for c in question.choices if c.pk in picked), 0.0)

    def gift_claims(self, answers: str) -> bool:
        return "~" in answers and not answers.startswith("#")  # "#" first: numerical.

    def gift_read(self, answers: str, reading: GiftReading, inherited_format: str) -> Read:
        """A multiple-choice question's choices: with a `=` it is single choice."""
        items = answers.replace("=", "~=").split("~")
        if not items[0].strip():
            items = items[1:]
        choices, weights = [], []
        for item in items:
            item = item.strip()
            if item.startswith("="):
                weight, item = 100.0, item[1:]
            elif match := GIFT_WEIGHT.match(item):
                weight, item = float(match.group(1)), item[match.end() :]
            else:
                weight = 0.0
            answer, _hash, feedback = item.partition("#")
            text, answer_format = reading.text(answer, inherited_format)
            choice = {"text": text}
            feedback_text, _format = reading.text(feedback, answer_format)
            if any(feedback_text.values()):
                choice["feedback"] = feedback_text
            choices.append(choice)
            weights.append(weight)
        return weighted(choices, weights, single="=" in answers)

    def gift_write(self, question: dict, writing: GiftWriting, general: str) -> list[str]:
        choices = question.get("choices", [])
        lines = ["{"]
        for choice, weight in zip(choices, several_weights(question), strict=True):
            text = writing.text(choice.get("text"))
            if self.several:
                mark = f"~%{weight_text(weight)}%"
            elif choice.get("correct"):
                mark = "="
            elif _credit(choice):
                mark = f"~%{weight_text(100 * _credit(choice))}%"
            else:
                # A wrong answer's text that starts like a weight keeps its % with a 0 weight.
                mark = "~%0%" if GIFT_WEIGHT.match(text) else "~"
            feedback = writing.plain(choice.get("feedback"))
            lines.append(
                f"\t{mark}{text}" + (f"#{writing.text(choice.get('feedback'))}" if feedback else "")
            )
        if general:
            lines.append(f"\t{general}")
        return [*lines, "}"]

    moodle_type = "multichoice"
    moodle_penalty = "0.3333333"

    def moodle_read(self, element: ET.Element, reading: MoodleReading) -> Read:
        single = (element.findtext("single") or "true").strip().lower() in ("true", "1")
        choices, weights = [], []
        for answer in element.findall("answer"):
            try:
                weight = float(answer.get("fraction", "0"))
            except ValueError:
                message = gettext("the answer weight “%(fraction)s” is not a number.")
                return Read(problem=message % {"fraction": answer.get("fraction")})
            choice = {"text": reading.text(answer)}
            feedback = reading.text(answer.find("feedback"))
            if feedback:
                choice["feedback"] = feedback
            choices.append(choice)
            weights.append(round(weight, 5))
        read = weighted(choices, weights, single=single)
        if read.problem or moodle_shuffles(element):
            return read
        return replace(read, fields={**read.fields, "keep_choice_order": True})

    def moodle_write(self, element: ET.Element, question: dict, writing: MoodleWriting) -> None:
        choices = question.get("choices", [])
        ET.SubElement(element, "single").text = "false" if self.several else "true"
        shuffles = not question.get("keep_choice_order")
        ET.SubElement(element, "shuffleanswers").text = "true" if shuffles else "false"
        ET.SubElement(element, "answernumbering").text = "abc"
        for choice, weight in zip(choices, several_weights(question), strict=True):
            if not self.several:
                weight = 100.0 if choice.get("correct") else 100 * _credit(choice)
            writing.answer(element, choice, weight, None)


def _credit(choice: dict) -> float:
    """A quiz-file choice's credit (a plain decimal, "0.5"), 0 when it has none."""
    return float(choice.get("credit") or 0)


def moodle_shuffles(element: ET.Element) -> bool:
    """Whether a Moodle question lets a quiz shuffle its answers: Moodle shuffles them only
    when the quiz and the question both say so, and a question says so unless it has
    <shuffleanswers> false (or 0)."""
    shuffles = (element.findtext("shuffleanswers") or "true").strip().lower()
    return shuffles not in ("false", "0")


def weighted(choices: list[dict], weights: list[float], *, single: bool) -> Read:
    """A Moodle multiple-choice question's choices, from its answers' weights (percent).

    With one answer to pick (single), the answer weighted 100 % is the correct
    one, an answer weighted between 0 and 100 % a near miss with that `credit`
    (50 %: 0.5), and one weighted below 0 counts as wrong (a warning says so).
    With several to pick, Moodle adds up the weights; here a choice is correct
    when its weight is above 0. Weights of this site's all-or-nothing export (`multiple_weights`:
    the correct share 100 %, each wrong -100 %) read back as all-or-nothing;
    any others give partial credit (`partial_grade`), warned of unless they are
    the ones it scores by (`partial_weights`: 50/50/-100, 50/50/-50/-50).
    """
    if len(weights) < 2:
        return Read(problem=gettext("a multiple-choice question needs at least two answers."))
    warnings = ()
    if single:
        if weights.count(100.0) > 1:
            message = gettext(
                "several answers are marked right, but a single-choice question has exactly one."
            )
            return Read(problem=message)
        if 100.0 not in weights:
            return Read(problem=gettext("no answer has full marks (weight 100): none is right."))
        negative = [weight for weight in weights if weight < 0]
        if negative:
            message = gettext(
                "a penalty is lost: the answers weighted %(weights)s count as wrong (0)."
            )
            warnings = (message % {"weights": _weights_text(negative)},)
        correct = [weight == 100.0 for weight in weights]
        for choice, weight in zip(choices, weights, strict=True):
            if 0 < weight < 100:  # A near miss: its share of the marks.
                choice["credit"] = weight_text(weight / 100)
        fields = {}
    else:
        if not any(weight > 0 for weight in weights):
            return Read(problem=gettext("no answer has a weight above 0: none is right."))
        correct = [weight > 0 for weight in weights]
        fields = {"kind": "multiple"}
        if not _weights_match(weights, multiple_weights(correct)) or _weights_match(
            weights, partial_weights(correct)
        ):
            fields["partial_credit"] = True
            if not _weights_match(weights, partial_weights(correct)):
                message = gettext(
                    "the weights %(weights)s are read as partial credit by equal shares: "
                    "each answer weighted above 0 is a correct choice worth its share, and "
                    "each other answer picked takes its share away."
                )
                warnings = (message % {"weights": _weights_text(weights)},)
    for choice, is_correct in zip(choices, correct, strict=True):
        choice["correct"] = is_correct
    return Read(fields={**fields, "choices": choices}, warnings=warnings)


def _weights_match(weights: list[float], ours: list[float]) -> bool:
    """Whether Moodle weights are the ones this site writes, which lose nothing read back:
    its own export, written to 5 decimals (33.33333)."""
    return all(abs(weight - our) < 0.001 for weight, our in zip(weights, ours, strict=True))


def weight_text(weight: float) -> str:
    """A Moodle weight as it writes them: 100, 50, 33.33333, -100."""
    return f"{weight:.5f}".rstrip("0").rstrip(".")


def multiple_weights(correct: list[bool]) -> list[float]:
    """Moodle weights for our all-or-nothing multiple choice, as near as Moodle's sums come.

    The correct choices share 100 %; a wrong one takes all of it away. (Moodle still gives
    a share for some of the correct choices and no wrong one.)
    """
    count = sum(correct) or 1
    return [100 / count if is_correct else -100.0 for is_correct in correct]


def partial_weights(correct: list[bool]) -> list[float]:
    """Moodle weights scoring as `partial_grade`: the correct choices share 100 %, the wrong
    ones -100 %. With one wrong choice they are `multiple_weights`, which then reads back
    as partial credit (as Moodle scores it)."""
    right = sum(correct) or 1
    wrong = len(correct) - sum(correct) or 1
    return [100 / right if is_correct else -100 / wrong for is_correct in correct]


def several_weights(question: dict) -> list[float]:
    """The Moodle weights a quiz-file multiple-choice question is written with."""
    correct = [bool(choice.get("correct")) for choice in question.get("choices", [])]
    if question.get("partial_credit"):
        return partial_weights(correct)
    return multiple_weights(correct)


def _weights_text(weights: list[float]) -> str:
    return ", ".join(gettext("%(value)s%%") % {"value": weight_text(weight)} for weight in weights)
