from lightnet.model import Net
