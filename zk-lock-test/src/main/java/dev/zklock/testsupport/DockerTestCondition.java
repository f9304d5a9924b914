package dev.zklock.testsupport;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.testcontainers.DockerClientFactory;

import dev.zklock.testsupport.DockerEngineProbe.Bridge;

/**
 * Enables {@link DockerTest @DockerTest} tests when a Docker engine answers and
 * Testcontainers can use it; otherwise skips them, or fails them when Docker tests
 * are required. An engine without a {@code bridge} network (started with
 * {@code --bridge=none}, as {@code .ci/run} does) is only usable when Testcontainers
 * needs no bridge: with {@code TESTCONTAINERS_RYUK_DISABLED=true}, and, in a JVM
 * that runs in a container ({@code /.dockerenv}), with
 * {@code TESTCONTAINERS_HOST_OVERRIDE} set. Without them Testcontainers fails with
 * "network bridge not found"; the tests are skipped with that reason instead.
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

	static final String HOST_OVERRIDE_VARIABLE = "TESTCONTAINERS_HOST_OVERRIDE";

	static final String RYUK_DISABLED_VARIABLE = "TESTCONTAINERS_RYUK_DISABLED";

	private static final Path DEFAULT_SOCKET = Path.of("/var/run/docker.sock");

	@Override
	public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
		Setup setup = Setup.detect();
		String problem = problem(setup, () -> DockerClientFactory.instance().isDockerAvailable());
		if (problem == null) {
			return ConditionEvaluationResult.enabled("A Docker engine answers");
		}
		if (isRequired()) {
			throw new IllegalStateException("Docker tests are required (" + REQUIRED_PROPERTY + " or "
					+ REQUIRED_ENVIRONMENT_VARIABLE + " is true) but " + problem + ". Or unset "
					+ REQUIRED_ENVIRONMENT_VARIABLE + " to skip Docker tests.");
		}
		return ConditionEvaluationResult
			.disabled(problem + "; set " + REQUIRED_ENVIRONMENT_VARIABLE + "=true to fail instead");
	}

	/**
	 * Why Docker tests cannot run, or {@code null} when they can.
	 * @param setup the engine and the Testcontainers settings
	 * @param testcontainersAnswers whether Testcontainers reaches the engine; asked
	 * only when nothing else is wrong
	 * @return the reason, with what to do
	 */
	static @Nullable String problem(Setup setup, BooleanSupplier testcontainersAnswers) {
		if (setup.bridge() == Bridge.ABSENT) {
			List<String> needs = new ArrayList<>();
			if (setup.inContainer() && !setup.hostOverride()) {
				needs.add("this JVM runs in a container (/.dockerenv) and " + HOST_OVERRIDE_VARIABLE
						+ " is not set, so Testcontainers looks up the bridge network's gateway");
			}
			if (!setup.ryukDisabled()) {
				needs.add(RYUK_DISABLED_VARIABLE + " is not true, so Testcontainers starts its Ryuk container "
						+ "on the bridge network");
			}
			if (!needs.isEmpty()) {
				return "the Docker engine at " + setup.engine() + " has no bridge network (network bridge not "
						+ "found) and " + String.join(", and ", needs) + "; set " + HOST_OVERRIDE_VARIABLE
						+ "=localhost and " + RYUK_DISABLED_VARIABLE + "=true as .ci/run does";
			}
		}
		if (!testcontainersAnswers.getAsBoolean()) {
			return "no Docker engine answers (" + ((setup.bridge() == Bridge.NO_ENGINE) ? "none at " : "tried ")
					+ setup.engine() + " and Testcontainers' usual places); start one, and on a machine with "
					+ "/.dockerenv also set " + HOST_OVERRIDE_VARIABLE + "=localhost";
		}
		return null;
	}

	static boolean isRequired() {
		String required = System.getProperty(REQUIRED_PROPERTY);
		if (required == null) {
			required = System.getenv(REQUIRED_ENVIRONMENT_VARIABLE);
		}
		return Boolean.parseBoolean((required != null) ? required.trim() : null);
	}

	/**
	 * The Docker engine and the Testcontainers settings that decide whether it needs
	 * a bridge network. Testcontainers reads both variables from the environment only.
	 *
	 * @param engine where the engine is expected
	 * @param bridge what the engine says about its bridge network
	 * @param inContainer whether this JVM runs in a container ({@code /.dockerenv})
	 * @param hostOverride whether {@code TESTCONTAINERS_HOST_OVERRIDE} is set
	 * @param ryukDisabled whether {@code TESTCONTAINERS_RYUK_DISABLED} is true
	 */
	record Setup(String engine, Bridge bridge, boolean inContainer, boolean hostOverride, boolean ryukDisabled) {

		static Setup detect() {
			String dockerHost = System.getenv("DOCKER_HOST");
			Bridge bridge;
			String engine;
			if (dockerHost == null || dockerHost.isBlank() || dockerHost.startsWith("unix://")) {
				Path socket = (dockerHost == null || dockerHost.isBlank()) ? DEFAULT_SOCKET
						: Path.of(URI.create(dockerHost).getPath());
				engine = socket.toString();
				bridge = DockerEngineProbe.bridge(socket);
			}
			else {
				// a TCP engine: Testcontainers takes the host from DOCKER_HOST and asks no bridge
				engine = dockerHost;
				bridge = Bridge.UNKNOWN;
			}
			String hostOverride = System.getenv(HOST_OVERRIDE_VARIABLE);
			return new Setup(engine, bridge, Files.exists(Path.of("/.dockerenv")),
					hostOverride != null && !hostOverride.isBlank(),
					Boolean.parseBoolean(System.getenv(RYUK_DISABLED_VARIABLE)));
		}

	}

}
