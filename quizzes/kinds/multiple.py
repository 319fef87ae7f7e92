"""Multiple choice: one or more of the choices are right; the learner ticks all of them.

Scored all-or-nothing (right only with exactly the correct choices), or, for a question
with `partial_credit`, by Moodle's rule (`choices.partial_grade`)."""

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from quizzes.kinds.choices import ChoiceKind, partial_grade, too_few_choices


class MultipleChoice(ChoiceKind):
    name = "multiple"
    label = _("Multiple choice")
    several = True

    def problems(self, correct: list[bool]) -> list[str]:
        if any(correct):
            return too_few_choices(correct)
        return [*too_few_choices(correct), gettext("Mark at least one choice as correct.")]

    def grade(self, question, picked: frozenset[int], response: str | None = None) -> float:
        if not question.partial_credit:
            return super().grade(question, picked, response)
        choices = question.choices
        return partial_grade(
            [choice.is_correct for choice in choices], [choice.pk in picked for choice in choices]
        )
