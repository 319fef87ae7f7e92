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
    path(
        "reports/quizzes/<slug:slug>/attempts-export/",
        reports.report_attempts_export,
        name="report_attempts_export",
    ),
    path("reports/exports/<uuid:export_id>/", reports.report_export, name="report_export"),
    path(
        "reports/exports/<uuid:export_id>/progress.json",
        reports.report_export_progress,
        name="report_export_progress",
    ),
    path(
        "reports/exports/<uuid:export_id>/attempts.csv",
        reports.report_export_file,
        name="report_export_file",
    ),
    path(
        "reports/exports/<uuid:export_id>/retry/",
        reports.report_export_retry,
        name="report_export_retry",
    ),
]
