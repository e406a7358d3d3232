"""Loss curves, as text."""


def plot_loss(losses):
    for step, loss in enumerate(losses[::10]):
        print(f"{step * 10:4d} {'#' * int(loss * 10)}")
