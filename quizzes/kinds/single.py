"""Single choice: one of the choices is right; the learner picks one."""

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from quizzes.kinds.choices import ChoiceKind, too_few_choices


class SingleChoice(ChoiceKind):
    name = "single"
    label = _("Single choice")

    def problems(self, correct: list[bool]) -> list[str]:
        if sum(correct) == 1:
            return too_few_choices(correct)
        return [*too_few_choices(correct), gettext("Mark exactly one choice as correct.")]
