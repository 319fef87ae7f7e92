from django import forms
from django.utils.translation import gettext_lazy as _

from .models import Choice


class AnswerForm(forms.Form):
    choice = forms.TypedChoiceField(
        coerce=int,
        error_messages={
            "required": _("Choose an answer."),
            "invalid_choice": _(
                "That is not one of this question's choices. Choose one of the answers shown."
            ),
        },
    )

    def __init__(self, *args, choices: list[Choice], **kwargs):
        super().__init__(*args, **kwargs)
        self._choices = {choice.pk: choice for choice in choices}
        self.fields["choice"].choices = [(choice.pk, choice.text) for choice in choices]

    def clean_choice(self) -> Choice:
        return self._choices[self.cleaned_data["choice"]]
