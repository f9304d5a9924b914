package dev.zklock.autoconfigure;

/**
 * Thrown at startup when a {@code zk-lock.*} property has a value that zk-lock cannot
 * use. Carries the property name, the offending value (masked for secrets), the reason
 * and the fix.
 */
public class InvalidZkLockPropertyException extends IllegalStateException {

	/**
	 * Shown instead of the value of a secret property.
	 */
	public static final String HIDDEN = "(hidden)";

	private final String property;

	private final String value;

	private final String reason;

	private final String action;

	/**
	 * Create a new exception.
	 * @param property the full property name, such as {@code zk-lock.session-timeout}
	 * @param value the offending value, safe to print; never a secret
	 * @param reason why the value is invalid
	 * @param action what to do about it
	 */
	public InvalidZkLockPropertyException(String property, String value, String reason, String action) {
		super("Invalid value '%s' for property '%s': %s. %s".formatted(value, property, reason, action));
		this.property = property;
		this.value = value;
		this.reason = reason;
		this.action = action;
	}

	/**
	 * Return the full name of the property at fault.
	 * @return the property name
	 */
	public String getProperty() {
		return this.property;
	}

	/**
	 * Return the offending value as it may be printed: secrets are replaced by
	 * {@link #HIDDEN}.
	 * @return the printable value
	 */
	public String getValue() {
		return this.value;
	}

	/**
	 * Return why the value is invalid.
	 * @return the reason
	 */
	public String getReason() {
		return this.reason;
	}

	/**
	 * Return what to do about it.
	 * @return the action
	 */
	public String getAction() {
		return this.action;
	}

}
