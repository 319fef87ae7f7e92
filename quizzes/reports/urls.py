from django.urls import path

from quizzes.reports import views as reports

urlpatterns = [
    path("reports/", reports.reports_index, name="reports"),
    path("reports/quizzes/<slug:slug>/", reports.report_quiz, name="report_quiz"),
    path(
        "reports/quizzes/<slug:slug>/attempts.csv",
        reports.report_attempts_csv,
        name="report_attempts_csv",
    ),
    path(
        "reports/quizzes/<slug:slug>/questions.csv",
        reports.report_questions_csv,
        name="report_questions_csv",
    ),
    path(
        "reports/quizzes/<slug:slug>/attempts/",
        reports.report_attempts,
        name="report_attempts",
    ),
    path(
        "reports/quizzes/<slug:slug>/attempts/<uuid:public_id>/",
        reports.report_attempt,
        name="report_attempt",
    ),
]
