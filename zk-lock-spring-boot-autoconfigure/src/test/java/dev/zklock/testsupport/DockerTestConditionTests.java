package dev.zklock.testsupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DockerTestCondition}'s switch that makes Docker tests required.
 */
class DockerTestConditionTests {

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

}
