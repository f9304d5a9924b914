package dev.zklock.aop;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertyResolver;

/**
 * The configured bounds that {@code maxHold} and {@code minHold} of a
 * {@link dev.zklock.annotation.DistributedLock} are checked against: one tick of
 * zk-lock's clock, and the default cap. Read once, on first use.
 */
final class HoldBounds {

	static final String TICK_PROPERTY = "zk-lock.pause-detection.tick";

	static final String MAX_HOLD_PROPERTY = "zk-lock.max-hold";

	// the default of zk-lock.pause-detection.tick
	private static final Duration DEFAULT_TICK = Duration.ofMillis(10);

	private final PropertyResolver resolver;

	private volatile @Nullable Duration tick;

	private volatile boolean defaultMaxHoldRead;

	private volatile @Nullable Duration defaultMaxHold;

	HoldBounds(PropertyResolver resolver) {
		this.resolver = resolver;
	}

	/**
	 * How often zk-lock's pause detector notices that this process runs: the finest
	 * time zk-lock measures a hold at.
	 */
	Duration tick() {
		Duration read = this.tick;
		if (read == null) {
			read = read(TICK_PROPERTY);
			read = (read != null && !read.isNegative() && !read.isZero()) ? read : DEFAULT_TICK;
			this.tick = read;
		}
		return read;
	}

	/**
	 * The cap of holds whose declaration sets none, or {@code null} for none.
	 */
	@Nullable Duration defaultMaxHold() {
		if (!this.defaultMaxHoldRead) {
			this.defaultMaxHold = read(MAX_HOLD_PROPERTY);
			this.defaultMaxHoldRead = true;
		}
		return this.defaultMaxHold;
	}

	// A value the properties validator rejects counts as unset here: it fails the startup with its own message
	private @Nullable Duration read(String property) {
		try {
			if (this.resolver instanceof Environment environment) {
				return Binder.get(environment).bind(property, Duration.class).orElse(null);
			}
			String value = this.resolver.getProperty(property);
			return (value != null && !value.isBlank()) ? DurationStyle.detectAndParse(value.trim()) : null;
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

}
