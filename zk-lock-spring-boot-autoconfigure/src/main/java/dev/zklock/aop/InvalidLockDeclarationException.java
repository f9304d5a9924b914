package dev.zklock.aop;

/**
 * Thrown at startup when a {@link dev.zklock.annotation.DistributedLock}
 * declaration cannot work: a bad key expression, timeout, fallback method or
 * return type. The message names the class, the method and what to change.
 */
public class InvalidLockDeclarationException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	/**
	 * Create a new instance.
	 * @param message the detail message
	 */
	public InvalidLockDeclarationException(String message) {
		super(message);
	}

}
