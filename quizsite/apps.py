from django.apps import AppConfig


class QuizsiteConfig(AppConfig):
    name = "quizsite"
    verbose_name = "Quizsite"
