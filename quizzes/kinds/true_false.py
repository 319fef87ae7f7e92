"""True or false: a single-choice question whose two choices are True and False.

Moodle's true/false questions have no choice texts, only which is right: a question of
ours is written as one when its two choices are named True and False in the file's
language (as the readers name them); otherwise as a single-choice question.
"""

from xml.etree import ElementTree as ET

from django.utils import translation
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from quizzes.kinds.base import GiftReading, GiftWriting, Kind, MoodleReading, MoodleWriting, Read
from quizzes.kinds.single import SingleChoice

_GIFT_ANSWERS = {"T": True, "TRUE": True, "F": False, "FALSE": False}


class TrueFalse(SingleChoice):
    name = "true_false"
    label = _("True or false")
    keeps_choice_order = True  # True then False, as everyone reads them, shuffled or not.

    def gift_claims(self, answers: str) -> bool:
        return answers.split("#", 1)[0].strip() in _GIFT_ANSWERS

    def gift_read(self, answers: str, reading: GiftReading, inherited_format: str) -> Read:
        """{T#wrong#right}: the first feedback is for a wrong answer, the second a right one."""
        answer, _hash, feedbacks = answers.partition("#")
        wrong, _hash, right = feedbacks.partition("#")
        is_true = _GIFT_ANSWERS[answer.strip()]
        wrong_text, _format = reading.text(wrong, inherited_format)
        right_text, _format = reading.text(right, inherited_format)
        true_text, false_text = choice_texts(reading.language)
        true = {"text": {reading.language: true_text}, "correct": is_true}
        false = {"text": {reading.language: false_text}, "correct": not is_true}
        for choice in (true, false):
            feedback = right_text if choice["correct"] else wrong_text
            if any(feedback.values()):
                choice["feedback"] = feedback
        return Read(fields={"kind": self.name, "choices": [true, false]})

    def gift_write(self, question: dict, writing: GiftWriting, general: str) -> list[str]:
        true, false = _named_choices(question, writing)
        right, wrong = (true, false) if true.get("correct") else (false, true)
        answer = "TRUE" if true.get("correct") else "FALSE"
        wrong_feedback = writing.text(wrong.get("feedback"))
        right_feedback = writing.text(right.get("feedback"))
        if writing.plain(wrong.get("feedback")) or writing.plain(right.get("feedback")):
            answer += f"#{wrong_feedback}"
        if writing.plain(right.get("feedback")):
            answer += f"#{right_feedback}"
        return [f"{{{answer}{general}}}"]

    moodle_type = "truefalse"
    moodle_penalty = "1"

    def moodle_read(self, element: ET.Element, reading: MoodleReading) -> Read:
        """Moodle's answers are named "true" and "false"; ours are True and False, in order."""
        answers = {
            (answer.findtext("text") or "").strip().lower(): answer
            for answer in element.findall("answer")
        }
        if set(answers) != {"true", "false"}:
            return Read(
                problem=gettext("a true/false question needs a “true” and a “false” answer.")
            )
        choices = []
        for key, text in zip(("true", "false"), choice_texts(reading.language), strict=True):
            answer = answers[key]
            choice = {"text": {reading.language: text}, "correct": _weight(answer) == 100.0}
            feedback = reading.text(answer.find("feedback"))
            if feedback:
                choice["feedback"] = feedback
            choices.append(choice)
        if sum(choice["correct"] for choice in choices) != 1:
            message = gettext(
                "a true/false question needs exactly one answer with full marks (weight 100)."
            )
            return Read(problem=message)
        return Read(fields={"kind": self.name, "choices": choices})

    def moodle_write(self, element: ET.Element, question: dict, writing: MoodleWriting) -> None:
        for choice, name in zip(_named_choices(question, writing), ("true", "false"), strict=True):
            writing.answer(element, choice, 100.0 if choice.get("correct") else 0.0, name)

    def exported_as(self, question: dict, writing: GiftWriting | MoodleWriting) -> Kind:
        if _named_choices(question, writing) is None:
            return SingleChoice()
        return self


def choice_texts(language: str) -> tuple[str, str]:
    """The texts of the two choices of a true-or-false question, in `language`."""
    with translation.override(language):
        return gettext("True"), gettext("False")


def _named_choices(
    question: dict, writing: GiftWriting | MoodleWriting
) -> tuple[dict, dict] | None:
    """The (true, false) choices of a quiz-file question, when their texts tell them apart."""
    choices = question.get("choices", [])
    if len(choices) != 2:
        return None
    true, false = (text.casefold() for text in choice_texts(writing.language))
    texts = [writing.plain(choice.get("text")).strip().casefold() for choice in choices]
    if texts == [true, false]:
        return choices[0], choices[1]
    if texts == [false, true]:
        return choices[1], choices[0]
    return None


def _weight(answer: ET.Element) -> float:
    try:
        return float(answer.get("fraction", "0"))
    except ValueError:
        return 0.0
