// Placeholder so the target builds until its layer lands.
