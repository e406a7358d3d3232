# A module named setup.py that builds a model rather than packaging one: the
# Python rules apply to it.
def build_model_for_eval(model):
    model.eval()
    model.cuda()  # expect: MPS201
    return model


def setup(args):
    return args
