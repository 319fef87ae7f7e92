from django.contrib.auth import views as auth_views
from django.urls import path

from quizsite.ratelimit import ratelimit
from quizzes.learning.forms import PasswordResetForm
from quizzes.learning.views import accounts
from quizzes.learning.views import pages as learner

urlpatterns = [
    path("", learner.home, name="home"),
    path("quizzes/<slug:slug>/", learner.quiz_detail, name="quiz_detail"),
    path("quizzes/<slug:slug>/start/", learner.quiz_start, name="quiz_start"),
    path("quizzes/<slug:slug>/start-over/", learner.quiz_start_over, name="quiz_start_over"),
    path("attempts/<uuid:public_id>/questions/<int:number>/", learner.question, name="question"),
    path("attempts/<uuid:public_id>/results/", learner.results, name="results"),
    path("attempts/<uuid:public_id>/practice/", learner.practice, name="practice"),
    path("progress/", learner.progress, name="progress"),
    path(
        "assignments/<int:assignment_id>/start/",
        learner.assignment_start,
        name="assignment_start",
    ),
    path("accounts/login/", accounts.SignInView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/signup/", accounts.SignUpView.as_view(), name="signup"),
    path("accounts/delete/", accounts.account_delete_view, name="account_delete"),
    path(
        "accounts/password_reset/",
        ratelimit("password-reset", limit="PASSWORD_RESET_LIMIT_PER_HOUR", per=3600)(
            auth_views.PasswordResetView.as_view(form_class=PasswordResetForm)
        ),
        name="password_reset",
    ),
    path(
        "accounts/password_reset/done/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "accounts/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
]
