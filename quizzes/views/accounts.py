"""Signing in, up and out: Django's auth views, handing over the attempts made signed out."""

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.views import LoginView, RedirectURLMixin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse_lazy
from django.utils.translation import gettext as _
from django.views.generic import FormView

from ..selectors import has_any_attempt
from ..services import attempts_claim
from .learners import forget_learner_key, learner_key, learner_of, note_attempts


class SignInView(LoginView):
    """Django's sign-in, which also hands the learner the attempts made before signing in."""

    def form_valid(self, form):
        response = super().form_valid(form)
        return _claim(self.request, response)


class SignUpView(RedirectURLMixin, FormView):
    form_class = UserCreationForm
    template_name = "registration/signup.html"
    next_page = reverse_lazy("home")

    def form_valid(self, form):
        login(self.request, form.save())
        return _claim(self.request, redirect(self.get_success_url()))


def _claim(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """Move the anonymous attempts to the account that just signed in; the key goes."""
    if attempts_claim(learner_key=learner_key(request), user=request.user):
        messages.success(request, _("Your attempts so far are now saved to your account."))
        note_attempts(request)
    elif has_any_attempt(learner=learner_of(request)):
        note_attempts(request)
    forget_learner_key(response)
    return response
