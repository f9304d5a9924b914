package dev.zklock.testsupport;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.testcontainers.DockerClientFactory;

/**
 * Enables {@link DockerTest @DockerTest} tests when a Docker engine answers; otherwise
 * skips them, or fails them when Docker tests are required.
 */
final class DockerTestCondition implements ExecutionCondition {

	/**
	 * System property that makes Docker tests required.
	 */
	static final String REQUIRED_PROPERTY = "zklock.test.docker-required";

	/**
	 * Environment variable that makes Docker tests required.
	 */
	static final String REQUIRED_ENVIRONMENT_VARIABLE = "ZK_LOCK_TEST_DOCKER_REQUIRED";

	@Override
	public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
		if (DockerClientFactory.instance().isDockerAvailable()) {
			return ConditionEvaluationResult.enabled("A Docker engine answers");
		}
		if (isRequired()) {
			throw new IllegalStateException("Docker tests are required (" + REQUIRED_PROPERTY + " or "
					+ REQUIRED_ENVIRONMENT_VARIABLE + " is true) but no Docker engine answers. Start one (on a "
					+ "machine with /.dockerenv also set TESTCONTAINERS_HOST_OVERRIDE=localhost), or unset "
					+ REQUIRED_ENVIRONMENT_VARIABLE + " to skip Docker tests.");
		}
		return ConditionEvaluationResult
			.disabled("No Docker engine answers; set " + REQUIRED_ENVIRONMENT_VARIABLE + "=true to fail instead");
	}

	static boolean isRequired() {
		String required = System.getProperty(REQUIRED_PROPERTY);
		if (required == null) {
			required = System.getenv(REQUIRED_ENVIRONMENT_VARIABLE);
		}
		return Boolean.parseBoolean((required != null) ? required.trim() : null);
	}

}
