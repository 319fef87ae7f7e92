"""Signals of writes that Django sends none for, so that apps downhill can follow them."""

from django.dispatch import Signal

# Guide paths written by a queryset's update, bulk_create or bulk_update; `pks` lists them.
guide_paths_written = Signal()
