// EGA's evaluation as registered experiments (filled in by the next commits).
