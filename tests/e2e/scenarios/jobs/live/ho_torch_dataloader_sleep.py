"""torch's own DataLoader, two workers, each sample waiting 0.2 s on remote storage."""
from live_common import HOLD, ready, say, util
import time
import torch
from torch.utils.data import DataLoader, Dataset


class Remote(Dataset):
    def __len__(self):
        return 10000

    def __getitem__(self, i):
        time.sleep(0.2)
        return torch.zeros(8)


if __name__ == "__main__":
    loader = DataLoader(Remote(), batch_size=2, num_workers=2)
    ready()
    util(2)
    end = time.monotonic() + HOLD
    for n, batch in enumerate(loader):
        say(f"batch {n}")
        if time.monotonic() > end:
            break
    say("done")
