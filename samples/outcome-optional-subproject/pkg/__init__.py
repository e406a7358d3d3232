from .model import TinyTransformer
