#!/bin/bash
#SBATCH --job-name=train
#SBATCH --gres=gpu:4
#SBATCH --partition=a100
module load cuda/12.1 cudnn/8.9
export CUDA_VISIBLE_DEVICES=0,1,2,3
export NCCL_DEBUG=INFO
pip install flash-attn --no-build-isolation
if nvidia-smi > /dev/null 2>&1; then
  torchrun --nproc_per_node=4 train.py --amp "$@"
else
  python train.py --device "${DEVICE:-cpu}"
fi
