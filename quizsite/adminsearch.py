"""The admin's search box takes a bounded text.

A search is a LIKE per search field and word: SQLite refuses a pattern over 50,000 bytes
("LIKE or GLOB pattern too complex", an OperationalError that read as the database being
down), and PostgreSQL scans with whatever it is given. Every ModelAdmin with search_fields
takes this mixin, the apps' and the packages' alike: `bound_every_search` gives it to them
once the admin has imported every app's admin module (tests/quizsite/test_edge_values.py
checks it).
"""

from django.contrib import admin, messages
from django.utils.translation import gettext

MAX_SEARCH_LENGTH = 200


class BoundedSearchMixin(admin.ModelAdmin):
    def get_search_results(self, request, queryset, search_term):
        if len(search_term) > MAX_SEARCH_LENGTH:
            message = gettext("A search takes at most %(count)s characters: nothing was searched.")
            self.message_user(request, message % {"count": MAX_SEARCH_LENGTH}, messages.ERROR)
            return queryset.none(), False
        return super().get_search_results(request, queryset, search_term)


def bound_every_search(site: admin.AdminSite) -> None:
    """Register again, with the mixin, each registered ModelAdmin that searches without it."""
    for model, model_admin in list(site._registry.items()):
        if model_admin.search_fields and not isinstance(model_admin, BoundedSearchMixin):
            bounded = type(type(model_admin).__name__, (BoundedSearchMixin, type(model_admin)), {})
            site.unregister(model)
            site.register(model, bounded)
