package dev.zklock.metrics;

import java.util.Objects;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.LockRevocation;
import dev.zklock.LockRevocationListener;

/**
 * Counts revoked locks in {@value #REVOCATIONS}, tagged with the lock name: one per
 * revocation, however many holders it removed. A failing registry never fails
 * the revocation, which has happened already.
 */
public class LockRevocationMetrics implements LockRevocationListener {

	/**
	 * Counter of the locks revoked through the locks endpoint or
	 * {@code LockTemplate.revoke}.
	 */
	public static final String REVOCATIONS = "zk.lock.revocations";

	private static final Logger logger = LoggerFactory.getLogger(LockRevocationMetrics.class);

	private final MeterRegistry registry;

	/**
	 * Create a new instance.
	 * @param registry where the counter is registered
	 */
	public LockRevocationMetrics(MeterRegistry registry) {
		this.registry = Objects.requireNonNull(registry, "registry must not be null");
	}

	@Override
	public void lockRevoked(LockRevocation revocation) {
		try {
			Counter.builder(REVOCATIONS)
				.description("Locks revoked: their holders' nodes deleted so that the next waiter gets them")
				.tag("name", revocation.name())
				.register(this.registry)
				.increment();
		}
		catch (RuntimeException ex) {
			logger.warn("Could not count the revocation of lock '{}' in {}", revocation.name(), REVOCATIONS, ex);
		}
	}

}
