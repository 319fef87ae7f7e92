from collections.abc import Sequence
from datetime import timedelta
from urllib.parse import urlsplit

from django import forms
from django.conf import settings
from django.contrib.auth import forms as auth_forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _

from quizsite.ratelimit import hashed_key, hit
from quizzes import kinds
from quizzes.snapshots import ChoiceContent, QuestionContent


class AnswerForm(forms.Form):
    """The answer to one question, all in the `choice` input, in its kind's field: one pick
    for a single choice or true-or-false question (a second value is refused, not ignored),
    one or more for a multiple-choice one, a number for a numerical one, a position per
    item for an ordering one.
    `cleaned_data["choices"]` holds the picked ChoiceContents (a number's: the one it
    matches, if any), `cleaned_data["response"]` what else the answer keeps (the number)."""

    def __init__(
        self,
        *args,
        choices: Sequence[ChoiceContent],
        kind: kinds.Kind,
        question: QuestionContent | None = None,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self._choices = {choice.pk: choice for choice in choices}
        self.kind = kind
        self.fields["choice"] = kind.form_field(choices, question)

    def clean_choice(self):
        takes_several = getattr(self.fields["choice"].widget, "allow_multiple_selected", False)
        if not takes_several and len(self.data.getlist("choice")) > 1:
            raise forms.ValidationError(_("This question takes one answer: choose only one."))
        return self.cleaned_data["choice"]

    def clean(self):
        data = super().clean()
        if "choice" in data:
            picked = self.kind.picked(data["choice"], self._choices.values())
            data["choices"] = tuple(self._choices[pk] for pk in dict.fromkeys(picked))
            data["response"] = self.kind.response(data["choice"])
        return data

    def checked(self) -> list[str]:
        """The posted values, to tick them again (or type them again) when the answer is
        refused."""
        return self.data.getlist("choice")


class SignUpForm(UserCreationForm):
    email = forms.EmailField(
        label=_("Email address"),
        required=False,
        help_text=_("Optional: only to send you a link if you forget your password."),
    )

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")

    def clean_email(self) -> str:
        """One account an address: a reset link for it must go to one account only."""
        email = self.cleaned_data["email"]
        if email and get_user_model().objects.filter(email__iexact=email).exists():
            raise forms.ValidationError(_("Another account uses this email address."))
        return email


class PasswordResetForm(auth_forms.PasswordResetForm):
    """Django's, with the link on the site's own address (settings.SITE_URL), not the one
    the request named, and at most PASSWORD_RESET_EMAILS_PER_ACCOUNT_PER_DAY emails to an
    account a day, however many addresses ask: the page says the same either way."""

    def get_users(self, email):
        for user in super().get_users(email):
            key = hashed_key("reset-email", str(user.pk))
            most = settings.PASSWORD_RESET_EMAILS_PER_ACCOUNT_PER_DAY
            if hit(key, limit=most, per=timedelta(days=1)):
                yield user

    def save(self, **kwargs) -> None:
        site = urlsplit(settings.SITE_URL)
        kwargs |= {"domain_override": site.netloc, "use_https": site.scheme == "https"}
        super().save(**kwargs)


class AccountDeleteForm(forms.Form):
    KEEP = "keep"
    DELETE = "delete"

    attempts = forms.ChoiceField(
        label=_("Your attempts"),
        widget=forms.RadioSelect,
        initial=KEEP,
        choices=[
            (KEEP, _("Keep them anonymously in the instructors' reports")),
            (DELETE, _("Delete them with my account")),
        ],
    )
    password = forms.CharField(
        label=_("Your password, to confirm"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError(_("That is not your password."))
        return password
