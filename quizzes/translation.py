from modeltranslation.translator import TranslationOptions, register

from .models import Choice, ContentImage, Question, Quiz


@register(Quiz)
class QuizTranslationOptions(TranslationOptions):
    fields = ("title", "description")
    required_languages = ("en",)


@register(Question)
class QuestionTranslationOptions(TranslationOptions):
    fields = ("prompt", "explanation", "guide_url")
    required_languages = ("en",)


@register(Choice)
class ChoiceTranslationOptions(TranslationOptions):
    fields = ("text", "feedback", "match")
    required_languages = ("en",)


@register(ContentImage)
class ContentImageTranslationOptions(TranslationOptions):
    fields = ("alt",)
    required_languages = ("en",)
