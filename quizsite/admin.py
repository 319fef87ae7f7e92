"""The admin pages of the packages' models (Django's users and groups, axes' records) take
the bounded search of quizsite/adminsearch.py, as the apps' own admin pages do.

The admin imports each app's admin module in the order of INSTALLED_APPS: this one after
Django's and axes', before the apps'.
"""

from django.contrib import admin

from quizsite.adminsearch import BoundedSearchMixin

for model, model_admin in list(admin.site._registry.items()):
    if model_admin.search_fields and not isinstance(model_admin, BoundedSearchMixin):
        bounded = type(type(model_admin).__name__, (BoundedSearchMixin, type(model_admin)), {})
        admin.site.unregister(model)
        admin.site.register(model, bounded)
