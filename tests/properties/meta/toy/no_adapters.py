"""A module that defines none of the adapter functions."""


def unrelated():
    return 0
