"""Signing in, up and out, resetting a password and deleting an account: Django's auth views,
handing over the attempts made signed out. Every `next` is kept to this site
(RedirectURLMixin checks it with url_has_allowed_host_and_scheme)."""

from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView, RedirectURLMixin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils.decorators import method_decorator
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods
from django.views.generic import FormView

from quizsite.ratelimit import ratelimit
from quizzes.learning.forms import AccountDeleteForm, SignUpForm
from quizzes.learning.identity import forget_learner_key, learner_key, learner_of, note_attempts
from quizzes.learning.selectors import has_any_attempt, in_a_class
from quizzes.learning.services import account_delete, attempts_claim


class SignInView(LoginView):
    """Django's sign-in, which also hands the learner the attempts made before signing in."""

    def form_valid(self, form):
        response = super().form_valid(form)
        return _claim(self.request, response)


@method_decorator(ratelimit("signup", limit="SIGNUP_LIMIT_PER_HOUR", per=3600), name="dispatch")
class SignUpView(RedirectURLMixin, FormView):
    """Sign up, then back to `next` (a page of this site) or home."""

    form_class = SignUpForm
    template_name = "registration/signup.html"
    next_page = reverse_lazy("home")

    def get_context_data(self, **kwargs):
        return super().get_context_data(**kwargs) | {"next": self.get_redirect_url()}

    def form_valid(self, form):
        login(self.request, form.save())
        return _claim(self.request, redirect(self.get_success_url()))


def _claim(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """Move the anonymous attempts to the account that just signed in; the key goes. The
    header links to My progress if the account has an attempt or is in a class (whose
    assignments it lists)."""
    if attempts_claim(learner_key=learner_key(request), user=request.user):
        messages.success(request, _("Your attempts so far are now saved to your account."))
        note_attempts(request)
    elif has_any_attempt(learner=learner_of(request)) or in_a_class(user=request.user):
        note_attempts(request)
    forget_learner_key(response)
    return response


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
@ratelimit(
    "account-delete",
    limit="ACCOUNT_DELETE_LIMIT_PER_HOUR",
    per=3600,
    by=lambda request: str(request.user.pk),  # A stolen session can't guess the password.
)
def account_delete_view(request: HttpRequest) -> HttpResponse:
    """Delete the account once its password confirms it, its attempts kept or not."""
    form = AccountDeleteForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        keep = form.cleaned_data["attempts"] == AccountDeleteForm.KEEP
        account_delete(user=request.user, keep_attempts=keep)
        logout(request)
        if keep:
            messages.success(request, _("Your account is deleted; its attempts stay anonymously."))
        else:
            messages.success(request, _("Your account and its attempts are deleted."))
        return redirect("home")
    status = 400 if form.is_bound else 200
    return render(request, "registration/account_delete.html", {"form": form}, status=status)
