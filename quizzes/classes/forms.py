from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from quizzes.models import CLASS_CODE_ALPHABET, CLASS_CODE_LENGTH, Class, class_code_typed


class ClassForm(forms.Form):
    name = forms.CharField(
        label=_("Name of the class"),
        max_length=Class._meta.get_field("name").max_length,
        help_text=_("As your learners know it, for example “Data parallelism, spring term”."),
    )


class JoiningForm(forms.Form):
    joining = forms.ChoiceField(choices=[("open", _("open")), ("closed", _("closed"))])

    @property
    def joining_open(self) -> bool:
        return self.cleaned_data["joining"] == "open"


class JoinCodeForm(forms.Form):
    # Longer than a code, for the spaces and dashes people type in it.
    code = forms.CharField(
        label=_("Class code"),
        max_length=40,
        help_text=_("The eight letters and digits your instructor gave you, as K7QX-29MF."),
    )

    def clean_code(self) -> str:
        code = class_code_typed(self.cleaned_data["code"])
        if len(code) != CLASS_CODE_LENGTH or not set(code) <= set(CLASS_CODE_ALPHABET):
            raise ValidationError(
                _("A class code is eight letters and digits, as K7QX-29MF."), code="malformed"
            )
        return code
