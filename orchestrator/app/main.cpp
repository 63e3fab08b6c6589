// Composition root: placeholder until the server core lands in this same change.
int main() { return 0; }
