from modeltranslation.translator import TranslationOptions, register

from .models import GuidePath


@register(GuidePath)
class GuidePathTranslationOptions(TranslationOptions):
    fields = ("title", "summary")
    required_languages = ("en",)
