"""The embed pages' own addresses (namespace "embed"), under /<lang>/embed/."""

from django.urls import path

from quizzes.embed import views

app_name = "embed"

urlpatterns = [
    path("quizzes/<slug:slug>/", views.quiz, name="quiz"),
    path("quizzes/<slug:slug>/start/", views.start, name="start"),
    path("quizzes/<slug:slug>/questions/<int:number>/", views.question, name="question"),
    path(
        "quizzes/<slug:slug>/questions/<int:number>/start/",
        views.question_start,
        name="question_start",
    ),
    path("connected/", views.connected, name="connected"),
]
