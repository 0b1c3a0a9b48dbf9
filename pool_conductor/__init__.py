"""pool: the conductor side of the fleet allocation service."""
import warnings

# oslo.messaging imports oslo.service's eventlet backend, which warns that
# eventlet is deprecated; pool uses native threads only.
warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')
