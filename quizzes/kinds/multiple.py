"""Multiple choice: one or more of the choices are right; the learner ticks all of them."""

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from quizzes.kinds.choices import ChoiceKind, too_few_choices


class MultipleChoice(ChoiceKind):
    name = "multiple"
    label = _("Multiple choice")
    several = True

    def problems(self, correct: list[bool]) -> list[str]:
        if any(correct):
            return too_few_choices(correct)
        return [*too_few_choices(correct), gettext("Mark at least one choice as correct.")]
