"""Hostile module: ``kron`` returns a sequence whose ``__len__`` raises ``SystemExit(0)``.  FAIL, exit 1."""


class _Out:
    def __len__(self):
        raise SystemExit(0)

    def __getitem__(self, i):
        return 0.0


def kron(x, y):
    return _Out()
