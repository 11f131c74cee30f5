"""Seeds of one setting trained as one batched computation (placeholder: nothing batched yet)."""


def train_batched(spec, setting, seeds, methods, version, device):
    """(rows, methods left to the unbatched path)."""
    return [], list(methods)
