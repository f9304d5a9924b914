package dev.zklock.aop;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.env.PropertyResolver;

/**
 * Parses the {@code timeout}, {@code maxHold} and {@code minHold} attributes of
 * {@link dev.zklock.annotation.DistributedLock}.
 */
final class LockTimeouts {

	private LockTimeouts() {
	}

	/**
	 * Resolve placeholders and parse the timeout.
	 * @param value the attribute value
	 * @param resolver resolves {@code ${...}} placeholders
	 * @return the timeout, or {@code null} for the configured default
	 * @throws IllegalArgumentException with a description of the problem
	 */
	static @Nullable Duration parse(String value, PropertyResolver resolver) {
		Duration timeout = parse(value, resolver, "\"5s\", \"250ms\", \"PT1M\", or \"0\" to try once without waiting");
		if (timeout != null && timeout.isNegative()) {
			throw new IllegalArgumentException("'" + value.trim() + "' is negative; use \"0\" to try once without waiting");
		}
		return timeout;
	}

	/**
	 * Resolve placeholders and parse the longest hold.
	 * @param value the attribute value
	 * @param resolver resolves {@code ${...}} placeholders
	 * @return the cap, or {@code null} for the configured default
	 * @throws IllegalArgumentException with a description of the problem
	 */
	static @Nullable Duration parseHold(String value, PropertyResolver resolver) {
		Duration hold = parse(value, resolver, "\"10m\", \"30s\" or \"PT1H\"");
		if (hold != null && (hold.isNegative() || hold.isZero())) {
			throw new IllegalArgumentException("'" + value.trim() + "' is not positive; give the longest hold, such as "
					+ "\"10m\", or leave it empty for the configured default");
		}
		return hold;
	}

	/**
	 * Resolve placeholders and parse the shortest hold.
	 * @param value the attribute value
	 * @param resolver resolves {@code ${...}} placeholders
	 * @return the shortest hold, or {@code null} for none (empty or zero)
	 * @throws IllegalArgumentException with a description of the problem
	 */
	static @Nullable Duration parseMinHold(String value, PropertyResolver resolver) {
		Duration hold = parse(value, resolver, "\"30s\", \"900ms\" or \"PT1M\"");
		if (hold != null && hold.isNegative()) {
			throw new IllegalArgumentException("'" + value.trim() + "' is negative; give the shortest hold, such as "
					+ "\"30s\", or leave it empty for none");
		}
		return (hold != null && !hold.isZero()) ? hold : null;
	}

	private static @Nullable Duration parse(String value, PropertyResolver resolver, String examples) {
		String resolved = value.trim();
		if (resolved.contains("${")) {
			try {
				resolved = resolver.resolveRequiredPlaceholders(resolved).trim();
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException(ex.getMessage()
						+ "; define the property or give the placeholder a default such as ${name:5s}", ex);
			}
		}
		if (resolved.isEmpty()) {
			return null;
		}
		try {
			return DurationStyle.detectAndParse(resolved);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("'" + resolved + "' is not a duration; use a form such as " + examples,
					ex);
		}
	}

}
