from xformers.ops import attention
