package dev.zklock.testsupport;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.zklock.testsupport.DockerEngineProbe.Bridge;
import dev.zklock.testsupport.DockerTestCondition.Setup;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DockerTestCondition}: the switch that makes Docker tests required,
 * and the decision whether Testcontainers can use the engine (pure logic, no engine).
 */
class DockerTestConditionTests {

	private final AtomicInteger testcontainersAsked = new AtomicInteger();

	@AfterEach
	void clearProperty() {
		System.clearProperty(DockerTestCondition.REQUIRED_PROPERTY);
	}

	@Test
	void requiredWhenPropertyIsTrue() {
		System.setProperty(DockerTestCondition.REQUIRED_PROPERTY, "true");
		assertThat(DockerTestCondition.isRequired()).isTrue();
	}

	@Test
	void notRequiredWhenPropertyIsFalse() {
		System.setProperty(DockerTestCondition.REQUIRED_PROPERTY, "false");
		assertThat(DockerTestCondition.isRequired()).isFalse();
	}

	@Test
	void anEngineWithoutBridgeAndWithoutTheCiVariablesIsNotUsed() {
		String problem = problem(new Setup("/var/run/docker.sock", Bridge.ABSENT, true, false, false), true);
		assertThat(problem).contains("network bridge not found", "/.dockerenv",
				"TESTCONTAINERS_HOST_OVERRIDE=localhost", "TESTCONTAINERS_RYUK_DISABLED=true", ".ci/run");
		assertThat(this.testcontainersAsked).hasValue(0);
	}

	@Test
	void ryukAloneNeedsTheBridge() {
		String problem = problem(new Setup("/var/run/docker.sock", Bridge.ABSENT, false, false, false), true);
		assertThat(problem).contains("Ryuk").doesNotContain("/.dockerenv");
		assertThat(problem(new Setup("/var/run/docker.sock", Bridge.ABSENT, true, true, false), true))
			.contains("Ryuk")
			.doesNotContain("(/.dockerenv)");
	}

	@Test
	void theHostLookupAloneNeedsTheBridge() {
		assertThat(problem(new Setup("/var/run/docker.sock", Bridge.ABSENT, true, false, true), true))
			.contains("/.dockerenv")
			.doesNotContain("Ryuk");
	}

	@Test
	void anEngineWithoutBridgeIsUsedWithTheCiVariables() {
		assertThat(problem(new Setup("/var/run/docker.sock", Bridge.ABSENT, true, true, true), true)).isNull();
		assertThat(problem(new Setup("/var/run/docker.sock", Bridge.ABSENT, false, false, true), true)).isNull();
		assertThat(this.testcontainersAsked).hasValue(2);
	}

	@Test
	void anEngineWithABridgeOrOverTcpIsLeftToTestcontainers() {
		assertThat(problem(new Setup("/var/run/docker.sock", Bridge.PRESENT, true, false, false), true)).isNull();
		assertThat(problem(new Setup("tcp://127.0.0.1:2375", Bridge.UNKNOWN, true, false, false), true)).isNull();
		assertThat(problem(new Setup("/var/run/docker.sock", Bridge.PRESENT, false, false, false), false))
			.startsWith("no Docker engine answers (tried /var/run/docker.sock");
	}

	@Test
	void noEngineAtTheSocketStillAsksTestcontainers() {
		assertThat(problem(new Setup("/var/run/docker.sock", Bridge.NO_ENGINE, true, false, false), false))
			.startsWith("no Docker engine answers (none at /var/run/docker.sock")
			.contains("start one");
		assertThat(problem(new Setup("/var/run/docker.sock", Bridge.NO_ENGINE, false, false, false), true)).isNull();
		assertThat(this.testcontainersAsked).hasValue(2);
	}

	@Test
	void readsTheEnginesAnswer(@TempDir Path dir) {
		assertThat(DockerEngineProbe.status("HTTP/1.1 200 OK\r\n")).isEqualTo(Bridge.PRESENT);
		assertThat(DockerEngineProbe.status("HTTP/1.0 404 Not Found\r\n")).isEqualTo(Bridge.ABSENT);
		assertThat(DockerEngineProbe.status("HTTP/1.1 500 Internal Server Error\r\n")).isEqualTo(Bridge.UNKNOWN);
		assertThat(DockerEngineProbe.status("SSH-2.0-OpenSSH\r\n")).isEqualTo(Bridge.NO_ENGINE);
		assertThat(DockerEngineProbe.bridge(dir.resolve("docker.sock"))).isEqualTo(Bridge.NO_ENGINE);
	}

	private String problem(Setup setup, boolean testcontainersAnswers) {
		BooleanSupplier answers = () -> {
			this.testcontainersAsked.incrementAndGet();
			return testcontainersAnswers;
		};
		return DockerTestCondition.problem(setup, answers);
	}

}
