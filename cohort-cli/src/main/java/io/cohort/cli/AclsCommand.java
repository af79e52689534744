package io.cohort.cli;

import io.cohort.api.v1.AclBinding;
import io.cohort.api.v1.AclBindingFilter;
import io.cohort.api.v1.AclOperation;
import io.cohort.api.v1.AclPatternType;
import io.cohort.api.v1.AclPermission;
import io.cohort.api.v1.AclResourceType;
import io.cohort.api.v1.DeleteAclsResponse;
import io.cohort.client.CohortClient;
import io.cohort.client.CohortException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code cohort acls add|remove|list}, modelled on kafka-acls.sh: {@code --allow-principal} /
 * {@code --deny-principal}, {@code --operation}, {@code --group} or {@code --cluster},
 * {@code --resource-pattern-type}. Changes need ALTER on the cluster, listing DESCRIBE.
 */
@Command(name = "acls", description = "Adds, removes and lists ACLs (docs/SECURITY.md, \"Authorization\").",
        subcommands = {AclsCommand.Add.class, AclsCommand.Remove.class, AclsCommand.ListAcls.class})
final class AclsCommand implements Runnable {
    static final String CLUSTER_NAME = "cohort-cluster";

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand");
    }

    /** The resource options every subcommand shares. */
    abstract static class ResourceCommand extends AdminCommand {
        @Option(names = "--group", paramLabel = "GROUP", description = "A group id, a prefix (with "
                + "--resource-pattern-type prefixed), or '*' for every group. Repeatable.")
        List<String> groups = new ArrayList<>();

        @Option(names = "--cluster", description = "The cluster resource (ClusterAdmin calls, ListGroups of all groups).")
        boolean cluster;

        @Option(names = "--operation", paramLabel = "OP",
                description = "read, describe, delete, alter or all. Repeatable.")
        List<String> operations = new ArrayList<>();

        @Option(names = "--resource-pattern-type", paramLabel = "TYPE", defaultValue = "literal",
                description = "literal (default) or prefixed; for list and remove also any and match.")
        String patternType;

        List<String[]> resources() {
            List<String[]> resources = new ArrayList<>();
            groups.forEach(g -> resources.add(new String[] {"GROUP", g}));
            if (cluster) {
                resources.add(new String[] {"CLUSTER", CLUSTER_NAME});
            }
            return resources;
        }

        AclPatternType pattern(boolean filter) {
            return switch (patternType.toLowerCase(Locale.ROOT)) {
                case "literal" -> AclPatternType.ACL_PATTERN_TYPE_LITERAL;
                case "prefixed" -> AclPatternType.ACL_PATTERN_TYPE_PREFIXED;
                case "any" -> filterOnly(filter, AclPatternType.ACL_PATTERN_TYPE_ANY);
                case "match" -> filterOnly(filter, AclPatternType.ACL_PATTERN_TYPE_MATCH);
                default -> throw usage("Invalid value for option '--resource-pattern-type': expected literal, prefixed"
                        + (filter ? ", any or match" : "") + ", got '" + patternType + "'");
            };
        }

        private AclPatternType filterOnly(boolean filter, AclPatternType type) {
            if (!filter) {
                throw usage("--resource-pattern-type " + patternType + " is for list and remove only");
            }
            return type;
        }

        List<AclOperation> operations() {
            List<AclOperation> parsed = new ArrayList<>();
            for (String op : operations) {
                parsed.add(switch (op.toLowerCase(Locale.ROOT)) {
                    case "read" -> AclOperation.ACL_OPERATION_READ;
                    case "describe" -> AclOperation.ACL_OPERATION_DESCRIBE;
                    case "delete" -> AclOperation.ACL_OPERATION_DELETE;
                    case "alter" -> AclOperation.ACL_OPERATION_ALTER;
                    case "all" -> AclOperation.ACL_OPERATION_ALL;
                    default -> throw usage("Invalid value for option '--operation': expected read, describe, delete, "
                            + "alter or all, got '" + op + "'");
                });
            }
            return parsed;
        }

        static AclResourceType type(String name) {
            return name.equals("CLUSTER") ? AclResourceType.ACL_RESOURCE_TYPE_CLUSTER
                    : AclResourceType.ACL_RESOURCE_TYPE_GROUP;
        }
    }

    /** {@code cohort acls add --allow-principal User:app --operation read --group orders}. */
    @Command(name = "add", description = "Adds ACLs: every principal x host x operation x resource given.")
    static final class Add extends ResourceCommand {
        @Option(names = "--allow-principal", paramLabel = "User:NAME", description = "Repeatable; User:* for everyone.")
        List<String> allow = new ArrayList<>();

        @Option(names = "--deny-principal", paramLabel = "User:NAME", description = "Repeatable.")
        List<String> deny = new ArrayList<>();

        @Option(names = "--allow-host", paramLabel = "IP", description = "Hosts of the ALLOW ACLs (default *).")
        List<String> allowHosts = new ArrayList<>();

        @Option(names = "--deny-host", paramLabel = "IP", description = "Hosts of the DENY ACLs (default *).")
        List<String> denyHosts = new ArrayList<>();

        @Override
        void validate() {
            if (allow.isEmpty() && deny.isEmpty()) {
                throw usage("Missing --allow-principal or --deny-principal");
            }
            if (resources().isEmpty()) {
                throw usage("Missing --group or --cluster");
            }
            if (operations.isEmpty()) {
                throw usage("Missing --operation");
            }
            pattern(false);
            operations();
        }

        @Override
        int execute(CohortClient client) {
            List<AclBinding> acls = new ArrayList<>();
            add(acls, allow, allowHosts, AclPermission.ACL_PERMISSION_ALLOW);
            add(acls, deny, denyHosts, AclPermission.ACL_PERMISSION_DENY);
            try {
                client.createAcls(acls);
            } catch (CohortException e) {
                throw CliFailure.of("adding ACLs", e);
            }
            out().print(AclsRender.acls(format(), "added", acls));
            return 0;
        }

        private void add(List<AclBinding> acls, List<String> principals, List<String> hosts, AclPermission permission) {
            for (String principal : principals) {
                for (String host : hosts.isEmpty() ? List.of("*") : hosts) {
                    for (String[] resource : resources()) {
                        for (AclOperation operation : operations()) {
                            boolean cluster = resource[0].equals("CLUSTER");
                            acls.add(AclBinding.newBuilder().setPrincipal(principal).setHost(host)
                                    .setResourceType(type(resource[0])).setResourceName(resource[1])
                                    .setPatternType(cluster ? AclPatternType.ACL_PATTERN_TYPE_LITERAL : pattern(false))
                                    .setOperation(operation).setPermission(permission).build());
                        }
                    }
                }
            }
        }
    }

    /** Filters built from the options: one per resource x operation (ANY for what is not given). */
    abstract static class FilterCommand extends ResourceCommand {
        @Option(names = "--principal", paramLabel = "User:NAME", description = "Only this principal's ACLs.")
        String principal;

        List<AclBindingFilter> filters() {
            List<AclOperation> ops = operations().isEmpty() ? List.of(AclOperation.ACL_OPERATION_ANY) : operations();
            List<String[]> resources = resources().isEmpty() ? java.util.Collections.singletonList(null) : resources();
            List<AclBindingFilter> filters = new ArrayList<>();
            for (String[] resource : resources) {
                for (AclOperation op : ops) {
                    AclBindingFilter.Builder filter = AclBindingFilter.newBuilder().setOperation(op);
                    if (principal != null) {
                        filter.setPrincipal(principal);
                    }
                    if (resource != null) {
                        filter.setResourceType(type(resource[0])).setResourceName(resource[1]);
                        if (!patternType.equalsIgnoreCase("any")) {
                            filter.setPatternType(resource[0].equals("CLUSTER")
                                    ? AclPatternType.ACL_PATTERN_TYPE_LITERAL : pattern(true));
                        }
                    }
                    filters.add(filter.build());
                }
            }
            return filters;
        }
    }

    /** {@code cohort acls remove [filters]}: removes every ACL matching. */
    @Command(name = "remove", description = "Removes the ACLs matching the options (all given options must match).")
    static final class Remove extends FilterCommand {
        @Override
        void validate() {
            if (resources().isEmpty() && principal == null) {
                throw usage("Give --group, --cluster or --principal: removing every ACL at once is refused");
            }
            pattern(true);
            operations();
        }

        @Override
        int execute(CohortClient client) {
            DeleteAclsResponse response;
            try {
                response = client.deleteAcls(filters());
            } catch (CohortException e) {
                throw CliFailure.of("removing ACLs", e);
            }
            List<AclBinding> removed = new ArrayList<>();
            response.getResultsList().forEach(r -> removed.addAll(r.getRemovedList()));
            out().print(AclsRender.acls(format(), "removed", removed));
            return 0;
        }
    }

    /** {@code cohort acls list [filters]}. */
    @Command(name = "list", description = "Lists the ACLs matching the options (all ACLs without options).")
    static final class ListAcls extends FilterCommand {
        @Override
        void validate() {
            pattern(true);
            operations();
        }

        @Override
        int execute(CohortClient client) {
            List<AclBinding> acls = new ArrayList<>();
            try {
                for (AclBindingFilter filter : filters()) {
                    for (AclBinding acl : client.describeAcls(filter)) {
                        if (!acls.contains(acl)) {
                            acls.add(acl);
                        }
                    }
                }
            } catch (CohortException e) {
                throw CliFailure.of("listing ACLs", e);
            }
            out().print(AclsRender.acls(format(), "acls", acls));
            return 0;
        }
    }
}
