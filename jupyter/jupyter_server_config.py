# JupyterLab server settings for `make lab` (and the browser tests).
#
# The committed notebooks under notebooks/ carry no outputs (a test checks it): when a
# notebook there is saved from JupyterLab, its outputs, execution counts and widget state are
# dropped before the file is written. Executed copies with every output live in
# build/notebooks/ (`make figures`) and are saved as they are.
from codedlib.notebooks import strip_outputs_pre_save

c = get_config()  # noqa: F821
c.ContentsManager.pre_save_hook = strip_outputs_pre_save
