package io.cohort.server.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Kafka's ssl.principal.mapping.rules semantics (cf. Kafka's SslPrincipalMapperTest). */
class PrincipalMappingRulesTest {
    static final String RULES = "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/,"
            + "RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L,"
            + "RULE:^cn=(.*?),ou=(.*?),dc=(.*?),dc=(.*?)$/$1@$2/U,"
            + "DEFAULT";

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "CN=kafka1,OU=ServiceUsers,O=Org,C=US | kafka1",
            "CN=Duke,OU=JavaSoft,O=Sun Microsystems,L=Cupertino,ST=CA,C=US | duke@javasoft",
            "cn=duke,ou=javasoft,dc=sun,dc=com | DUKE@JAVASOFT",
            "CN=unmatched,O=Other | CN=unmatched,O=Other",
    })
    void testFirstMatchingRuleWins(String dn, String expected) {
        assertThat(PrincipalMappingRules.parse(RULES).userName(dn)).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "DEFAULT"})
    void testDefaultKeepsTheWholeDn(String rules) {
        assertThat(PrincipalMappingRules.parse(rules).userName("CN=app,O=Acme")).isEqualTo("CN=app,O=Acme");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "RULE:^CN=(.*?),.*$/$1/ | CN=app,O=Acme | app",
            "RULE:^CN=(.*?)\\/x,.*$/$1/ | CN=a/x,O=Acme | a",
    })
    void testWithoutDefaultAnUnmatchedDnStaysWhole(String rules, String dn, String expected) {
        assertThat(PrincipalMappingRules.parse(rules).userName(dn)).isEqualTo(expected);
        assertThat(PrincipalMappingRules.parse(rules).userName("O=NoCn")).isEqualTo("O=NoCn");
    }

    @ParameterizedTest
    @ValueSource(strings = {"RULE:^CN=(.*?)/$1", "RULE:^CN=(.*?)/$1/X", "DEFAULTS", "RULE:[/$1/", "DEFAULT;DEFAULT"})
    void testMalformedRulesAreRefused(String rules) {
        assertThatThrownBy(() -> PrincipalMappingRules.parse(rules)).isInstanceOf(IllegalArgumentException.class);
    }
}
