from django.contrib.auth import views as auth_views
from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("quizzes/<slug:slug>/", views.quiz_detail, name="quiz_detail"),
    path("quizzes/<slug:slug>/start/", views.quiz_start, name="quiz_start"),
    path("attempts/<uuid:public_id>/questions/<int:number>/", views.question, name="question"),
    path("attempts/<uuid:public_id>/results/", views.results, name="results"),
    path("accounts/login/", views.SignInView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/signup/", views.SignUpView.as_view(), name="signup"),
]

urlpatterns += [
    path("reports/", views.reports_index, name="reports"),
    path("reports/quizzes/<slug:slug>/", views.report_quiz, name="report_quiz"),
    path(
        "reports/quizzes/<slug:slug>/attempts.csv",
        views.report_attempts_csv,
        name="report_attempts_csv",
    ),
    path(
        "reports/quizzes/<slug:slug>/questions.csv",
        views.report_questions_csv,
        name="report_questions_csv",
    ),
]
