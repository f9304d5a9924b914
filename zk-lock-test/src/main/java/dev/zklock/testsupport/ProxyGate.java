package dev.zklock.testsupport;

import java.io.DataOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Whether a {@link ZooKeeperProxy} lets traffic through or blackholes it, shared by all
 * its connections. A reply is forwarded under the same lock that starts a blackhole,
 * so that none slips through once the blackhole has begun.
 */
final class ProxyGate {

	private final Object gate = new Object();

	private final Object replyLock = new Object();

	private volatile long lastForwardedReplyNanos = System.nanoTime();

	private volatile boolean blackholed;

	void pass() {
		synchronized (this.gate) {
			this.blackholed = false;
			this.gate.notifyAll();
		}
	}

	void blackhole() {
		this.blackholed = true;
	}

	// no reply in flight can be forwarded after this
	void blackholeNow() {
		synchronized (this.replyLock) {
			this.blackholed = true;
		}
	}

	boolean isBlackholed() {
		return this.blackholed;
	}

	/**
	 * Blackhole as soon as no reply has been forwarded for {@code quiet}.
	 * @param quiet how long no reply must have been forwarded
	 * @param timeout the longest wait
	 * @param proxy the proxy, for the error message
	 * @return how long no reply had been forwarded, in nanoseconds
	 */
	long blackholeWhenQuiet(Duration quiet, Duration timeout, Object proxy) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (System.nanoTime() - deadline < 0) {
			synchronized (this.replyLock) {
				long silent = System.nanoTime() - this.lastForwardedReplyNanos;
				if (silent >= quiet.toNanos()) {
					this.blackholed = true;
					return silent;
				}
			}
			synchronized (this.gate) {
				try {
					this.gate.wait(2);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException("Interrupted while waiting for a quiet moment", ex);
				}
			}
		}
		throw new IllegalStateException("The servers never stayed quiet for " + quiet.toMillis() + " ms within "
				+ timeout.toMillis() + " ms through " + proxy);
	}

	/**
	 * Wait while the proxy blackholes.
	 * @param closed whether the waiting connection was closed meanwhile
	 * @throws IOException when it was, or the wait was interrupted
	 */
	void awaitPassable(BooleanSupplier closed) throws IOException {
		if (!this.blackholed) {
			return;
		}
		synchronized (this.gate) {
			while (this.blackholed && !closed.getAsBoolean()) {
				try {
					this.gate.wait(100);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IOException("Interrupted while blackholed", ex);
				}
			}
		}
		if (closed.getAsBoolean()) {
			throw new IOException("Connection reset while blackholed");
		}
	}

	void forwardReply(byte[] packet, DataOutputStream out, BooleanSupplier closed) throws IOException {
		while (true) {
			synchronized (this.replyLock) {
				if (!this.blackholed) {
					ZooKeeperPackets.write(packet, out);
					this.lastForwardedReplyNanos = System.nanoTime();
					return;
				}
			}
			awaitPassable(closed);
		}
	}

}
